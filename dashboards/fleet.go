package main

import (
	"fmt"

	"github.com/walab/walab/alerts"
	d "github.com/walab/walab/internal/dashboard"
)

// modelSel filters a fleet recording rule to the chosen models.
const modelSel = `{model=~"$model"}`

// fleet is the view across hosts: WA by model and firmware, the drives
// whose WA is highest or rose most, when each drive wears out, and where
// placement is on. Its panels read the fleet recording rules
// (alerts/fleet.go, group walab-fleet.rules), so a dashboard refresh costs
// the store a few series however many drives the fleet has.
// docs/fleet.md describes the stack it reads.
func fleet() *d.Builder {
	b := d.New("walab-fleet", "walab / fleet", "fleet")
	b.Variable("model", "Model", "label_values(walab_nvme_info, model)")
	top := fmt.Sprint(alerts.FleetTop)
	b.Row("Write amplification across the fleet")
	b.Timeseries("Hourly WA by model and firmware (median, p90)", "none", "Quantiles of the drives' hourly WA ("+alerts.WA1h+") per model and firmware ("+alerts.FleetWAP50+", _p90): a firmware whose WA differs from its model's other firmware shows here.", 16,
		d.Q(alerts.FleetWAP50+modelSel, "p50 {{model}} {{firmware}}"),
		d.Q(alerts.FleetWAP90+modelSel, "p90 {{model}} {{firmware}}"))
	b.Timeseries("Drives with an hourly WA by model and firmware", "none", "How many drives each quantile is over.", 8,
		d.Q(alerts.FleetWADrive+modelSel, "{{model}} {{firmware}}"))
	b.Labels("Top "+top+" drives by hourly WA", "The fleet's "+top+" drives writing the most NAND bytes per host byte over the last hour ("+alerts.FleetTopWA+"), those of the chosen models.", 12,
		d.Q(alerts.FleetTopWA+modelSel, "{{instance}} {{device}} {{model}} {{firmware}}"))
	b.Labels("Top "+top+" drives by WA change against their own earlier WA", "Hourly WA now minus the same drive's hourly WA wa_change_offset ago (alerts/config.yml, 24h by default; "+alerts.FleetTopWAChange+"): the drives a firmware update, a configuration or schema change made worse. The drive keeps its series across a firmware update, labelled with the new firmware. WalabWARegressionVsBaseline alerts on a rise against the drive's own WA baseline_offset ago.", 12,
		d.Q(alerts.FleetTopWAChange+modelSel, "{{instance}} {{device}} {{model}} {{firmware}}"))
	b.Row("Endurance")
	b.Labels("Days until 100 % used, soonest "+top, "At the NAND write rate of the drive's last hour (host write rate x WA): the NAND bytes left to Percentage Used 100 %, taking Percentage Used as proportional to the NAND bytes written so far, over that rate ("+alerts.FleetSoonestWornOut+"). 0 for a drive past 100 %; absent for idle drives and drives at 0 % used.", 24,
		d.Q(alerts.FleetSoonestWornOut+modelSel, "{{instance}} {{device}} {{model}}"))
	b.Timeseries("Percentage used by model (max, median)", "percentunit", "", 24,
		d.Q(`max by (model) (`+alerts.WithModel(`walab_nvme_percentage_used_ratio`)+`)`, "max {{model}}"),
		d.Q(`quantile by (model) (0.5, `+alerts.WithModel(`walab_nvme_percentage_used_ratio`)+`)`, "p50 {{model}}"))
	b.Row("Placement")
	b.Stat("Drives with placement on / off", "none", "Drives whose streams or FDP directive is enabled or not, from the streams collector ("+alerts.FleetPlacement+"); absent when no drive reports its directive state.", 24,
		d.Q(alerts.FleetPlacement+`{placement="on"}`, "on"), d.Q(alerts.FleetPlacement+`{placement="off"}`, "off"))
	return b
}
