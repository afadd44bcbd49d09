package alerts

import (
	"fmt"

	"github.com/walab/walab/internal/promql"
)

// Names of the fleet recording rules (group walab-fleet.rules): aggregates
// over every drive the store holds, read by the fleet dashboard. Each is a
// handful of series however large the fleet: FleetTop drives, or one
// series per model and firmware.
const (
	// Quantiles of the drives' hourly WA (WA1h) and the number of drives
	// that have one, per model and firmware.
	FleetWAP50   = "model_firmware:walab_nvme_write_amplification:p50_ratio_increase1h"
	FleetWAP90   = "model_firmware:walab_nvme_write_amplification:p90_ratio_increase1h"
	FleetWADrive = "model_firmware:walab_nvme_write_amplification:drives_ratio_increase1h"
	// The FleetTop drives with the highest hourly WA, labelled with their
	// model and firmware.
	FleetTopWA = "fleet:walab_nvme_write_amplification:top_ratio_increase1h"
	// The FleetTop drives whose hourly WA rose most against their own
	// hourly WA wa_change_offset earlier (the rise, in WA).
	FleetTopWAChange = "fleet:walab_nvme_write_amplification:top_change_ratio_increase1h"
	// The FleetTop drives that reach Percentage Used 100 % first at their
	// last hour's NAND write rate (days from now).
	FleetSoonestWornOut = "fleet:walab_nvme_percentage_used:bottom_days_to_full"
	// Drives with streams or FDP on (label placement="on") and off
	// ("off"); absent when no drive reports its directive state.
	FleetPlacement = "fleet:walab_nvme_placement:drives"
)

// FleetTop is how many drives the fleet's top and bottom rules keep.
const FleetTop = 20

// FleetDrives selects the drives of the fleet from walab_nvme_info: every
// drive but a simulated one (simulated="true", an exporter configured with
// a sim: section, docs/sim.md), whose invented WA would pass for a drive's
// in the fleet's quantiles and tops. The per-drive recording rules keep
// it: the lab measures on it.
var FleetDrives = promql.NVMeInfo + `{simulated!="true"}`

// Placement is 1 per fleet drive whose streams or FDP directive is
// enabled, 0 per fleet drive that reports the state with neither on.
var Placement = `(max by (instance, job, device) (` + promql.NVMeDirectiveEnabled + `{directive=~"streams|data_placement"} or ` + promql.NVMeFDPEnabled + `) and on (instance, job, device) ` + FleetDrives + `)`

// WithModel labels a per-drive expression (by instance, job and device)
// with the drive's current model and firmware, keeping the fleet's drives
// (FleetDrives) alone. It matches on the drive, not its firmware, so a
// drive whose firmware changed inside expr's range keeps its series
// (under the new firmware).
func WithModel(expr string) string {
	return "(" + expr + ") * on (instance, job, device) group_left (model, firmware) max by (instance, job, device, model, firmware) (" + FleetDrives + ")"
}

// WAChange is each drive's hourly WA now minus its own hourly WA offset
// earlier.
func WAChange(offset string) string { return WA1h + " - " + WA1h + " offset " + offset }

// DaysToFull is each drive's days until Percentage Used reaches 100 % at
// the NAND write rate of its last WA window (MediaIncrease1h over the
// window's seconds), taking Percentage Used as proportional to the NAND
// bytes written so far: the NAND bytes left are (1 - used) / used times
// those written. 0 for a drive past 100 %; absent for a drive at 0 % or
// without NAND writes in the window.
func DaysToFull(window string) string {
	used := promql.NVMePercentageUsed
	return fmt.Sprintf("clamp_min(1 - %[1]s, 0) / (%[1]s > 0) * sum without (source) (%[2]s) / (%[3]s > 0) * %[4]s / 86400",
		used, promql.NVMeMediaWrittenBytes, MediaIncrease1h, num(Seconds(window).Seconds()))
}

func fleetRules(c Config) []Rule {
	wa := WithModel(WA1h)
	placement := func(state string, v int) Rule {
		r := rec(FleetPlacement, fmt.Sprintf("count(%s == %d)", Placement, v))
		r.Labels = map[string]string{"placement": state}
		return r
	}
	return []Rule{
		rec(FleetWAP50, "quantile by (model, firmware) (0.5, "+wa+")"),
		rec(FleetWAP90, "quantile by (model, firmware) (0.9, "+wa+")"),
		rec(FleetWADrive, "count by (model, firmware) ("+wa+")"),
		rec(FleetTopWA, fmt.Sprintf("topk(%d, %s)", FleetTop, wa)),
		rec(FleetTopWAChange, fmt.Sprintf("topk(%d, %s)", FleetTop, WithModel(WAChange(c.WAChangeOffset)))),
		rec(FleetSoonestWornOut, fmt.Sprintf("bottomk(%d, %s)", FleetTop, WithModel(DaysToFull(c.WAWindow)))),
		placement("on", 1),
		placement("off", 0),
	}
}
