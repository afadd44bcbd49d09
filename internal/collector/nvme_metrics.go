package collector

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/promql"
)

// NVMe metric descriptors (docs/metrics.md, "NVMe"). Counters that are
// 128-bit on the drive reach float64 only here.
var (
	nvmeInfoDesc = prometheus.NewDesc(promql.NVMeInfo,
		"NVMe controller identity and the NAND counter source walab chose for it (always 1); unit_confirmed is false for a vendor layout whose byte unit no two public sources agree on (its byte counters may be off by that unit, its WA is not).",
		[]string{"device", "model", "serial", "firmware", "source", "simulated", "unit_confirmed"}, nil)
	nvmeControllersDesc = prometheus.NewDesc(Namespace+"_nvme_controllers",
		"NVMe controllers the exporter watches (found, listed, replayed or the configured simulated drive). 0: discovery found none and the configuration names no sim: section, so no drive is served (the exporter log says so).",
		nil, nil)
	nvmeUpDesc = prometheus.NewDesc(Namespace+"_nvme_up",
		"1 if the controller's SMART log (and NAND source) was read for this scrape, 0 if the read failed (see the exporter log).",
		[]string{"device"}, nil)
	nvmeHostWrittenDesc = prometheus.NewDesc(promql.NVMeHostWrittenBytes,
		"Bytes the host wrote, from the NAND source when it has its own host counter, else SMART Data Units Written x 512000.",
		[]string{"device", "source"}, nil)
	nvmeMediaWrittenDesc = prometheus.NewDesc(promql.NVMeMediaWrittenBytes,
		"Bytes written to NAND/media (host writes plus garbage collection) from the chosen source; absent when the drive exposes none.",
		[]string{"device", "source"}, nil)
	nvmeGCWrittenDesc = prometheus.NewDesc(Namespace+"_nvme_gc_written_bytes_total",
		"Bytes written by the drive's garbage collection, where the source reports them separately.",
		[]string{"device", "source"}, nil)
	nvmeSMARTWrittenDesc = prometheus.NewDesc(Namespace+"_nvme_smart_data_units_written_bytes_total",
		"SMART Data Units Written x 512000 (the drive rounds each unit of 1000 sectors up).",
		[]string{"device"}, nil)
	nvmeHostWriteCmdsDesc = prometheus.NewDesc(Namespace+"_nvme_host_write_commands_total",
		"Write commands the controller completed (SMART).", []string{"device"}, nil)
	nvmePercentUsedDesc = prometheus.NewDesc(promql.NVMePercentageUsed,
		"Vendor estimate of the endurance used (SMART Percentage Used / 100; may exceed 1).", []string{"device"}, nil)
	nvmeSpareDesc = prometheus.NewDesc(Namespace+"_nvme_available_spare_ratio",
		"Remaining spare capacity (SMART Available Spare / 100).", []string{"device"}, nil)
	nvmeTempDesc = prometheus.NewDesc(Namespace+"_nvme_temperature_celsius",
		"Composite temperature (SMART, converted from Kelvin).", []string{"device"}, nil)
	nvmeMediaErrorsDesc = prometheus.NewDesc(Namespace+"_nvme_media_errors_total",
		"Unrecovered data integrity errors (SMART Media and Data Integrity Errors).", []string{"device"}, nil)
	nvmeUnsafeShutdownsDesc = prometheus.NewDesc(Namespace+"_nvme_unsafe_shutdowns_total",
		"Power losses without a shutdown notification (SMART).", []string{"device"}, nil)
	nvmePowerOnDesc = prometheus.NewDesc(Namespace+"_nvme_power_on_seconds_total",
		"Power-on time (SMART Power On Hours x 3600, so hour resolution).", []string{"device"}, nil)
	nvmeCritWarnDesc = prometheus.NewDesc(Namespace+"_nvme_critical_warning",
		"SMART critical warning bitmap (bit 0 spare, 1 temperature, 2 reliability, 3 read-only, 4 volatile backup).", []string{"device"}, nil)
	nvmeCapacityDesc = prometheus.NewDesc(promql.NVMeCapacity,
		"Total NVM capacity of the controller (Identify TNVMCAP); where the controller reports none (TNVMCAP 0), the sum of its namespaces' sizes (NSZE x LBA size). Absent when neither is known.", []string{"device"}, nil)
	nvmeSourceUpDesc = prometheus.NewDesc(promql.NVMeSourceUp,
		"1 if the device's NAND counter source was read for this scrape, 0 if the device answered but that source did not (its byte counters and WA are then absent, never frozen). The source chosen at probe time is kept; absent for source none and while the device is down.",
		[]string{"device", "source"}, nil)
	nvmeSourceErrsDesc = prometheus.NewDesc(promql.NVMeSourceErrors,
		"Failed reads of the device's NAND counter source, by reason: the NVMe status in hex, decode (the page did not parse as the source expects), timeout, or errno.",
		[]string{"device", "source", "reason"}, nil)
	nvmeReadTimeoutsDesc = prometheus.NewDesc(Namespace+"_nvme_read_timeouts_total",
		"Reads of the device that a scrape (--scrape.timeout), the WA sampler or a run-start mark (--nvme.read-timeout) stopped waiting for: a slow or hung controller. The read itself continues in the background.",
		[]string{"device"}, nil)
	nvmeAdminCmdsDesc = prometheus.NewDesc(Namespace+"_nvme_admin_commands_total",
		"Admin commands walab sent to the controller (all collectors), by opcode and, for Get Log Page, log id.",
		[]string{"device", "opcode", "log_id"}, nil)
	nvmeAdminErrsDesc = prometheus.NewDesc(Namespace+"_nvme_admin_command_errors_total",
		"Admin commands that completed with an error: NVMe status in hex, or errno for an error before the controller answered (e.g. EACCES).",
		[]string{"device", "opcode", "status"}, nil)
	nvmeAdminRefusedDesc = prometheus.NewDesc(Namespace+"_nvme_admin_commands_refused_total",
		"Admin commands walab's read-only guard refused before they reached the device (should stay 0).",
		[]string{"device"}, nil)
)

func opcodeLabel(op uint8) string {
	switch op {
	case admin.OpGetLogPage:
		return "get_log_page"
	case admin.OpIdentify:
		return "identify"
	case admin.OpGetFeatures:
		return "get_features"
	case admin.OpDirectiveReceive:
		return "directive_receive"
	}
	return fmt.Sprintf("0x%02x", op)
}

func logIDLabel(k admin.CommandKey) string {
	if k.Opcode != admin.OpGetLogPage {
		return ""
	}
	return fmt.Sprintf("0x%02x", k.LogID)
}

func statusLabel(status uint16) string {
	if status == 0 {
		return "errno"
	}
	return fmt.Sprintf("0x%04x", status)
}
