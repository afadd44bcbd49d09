package main

import (
	"github.com/walab/walab/alerts"
	d "github.com/walab/walab/internal/dashboard"
)

func deviceHealth() *d.Builder {
	b := withVars(d.New("walab-device-health", "walab / device health", "smart"))
	b.Row("SMART")
	b.Stat("Device up", "none", "1 if the exporter read the device this scrape.", 6, d.Q(`walab_nvme_up{`+devSel+`}`, "{{device}}"))
	b.Stat("Percentage used", "percentunit", "", 6, d.Q(`walab_nvme_percentage_used_ratio{`+devSel+`}`, "{{device}}"))
	b.Stat("Available spare", "percentunit", "", 6, d.Q(`walab_nvme_available_spare_ratio{`+devSel+`}`, "{{device}}"))
	b.Stat("Critical warning", "none", "SMART critical-warning bitmap; 0 is healthy.", 6, d.Q(`walab_nvme_critical_warning{`+devSel+`}`, "{{device}}"))
	b.Timeseries("Temperature", "celsius", "", 12, d.Q(`walab_nvme_temperature_celsius{`+devSel+`}`, "{{device}}"))
	b.Timeseries("Power-on time", "s", "", 12, d.Q(`walab_nvme_power_on_seconds_total{`+devSel+`}`, "{{device}}"))
	b.Timeseries("Media errors and unsafe shutdowns", "short", "Increase over the rate interval.", 12,
		d.Q(`increase(walab_nvme_media_errors_total{`+devSel+`}[`+rate+`])`, "{{device}} media errors"),
		d.Q(`increase(walab_nvme_unsafe_shutdowns_total{`+devSel+`}[`+rate+`])`, "{{device}} unsafe shutdowns"))
	b.Timeseries("Host write commands", "ops", "", 12, d.Q(`rate(walab_nvme_host_write_commands_total{`+devSel+`}[`+rate+`])`, "{{device}}"))
	b.Row("Exporter")
	b.Timeseries("Admin commands sent", "ops", "Identify / Get Log Page / Get Features / Directive Receive, the only commands walab sends.", 12,
		d.Q(`sum by (device, opcode) (rate(walab_nvme_admin_commands_total{`+devSel+`}[`+rate+`]))`, "{{device}} {{opcode}}"))
	b.Timeseries("Admin command errors", "ops", "", 12,
		d.Q(`sum by (device, opcode, status) (rate(walab_nvme_admin_command_errors_total{`+devSel+`}[`+rate+`]))`, "{{device}} {{opcode}} {{status}}"))
	b.Timeseries("Collector duration", "s", "", 24,
		d.Q(`walab_scrape_collector_duration_seconds{instance=~"$instance"}`, "{{collector}}"))
	return b
}

func streamsPlacement() *d.Builder {
	b := withVars(d.New("walab-streams-placement", "walab / streams & placement", "streams"))
	b.Row("Observed per command (placement tracer)")
	b.Timeseries("Write bytes carrying placement", "percentunit", "Share of the write bytes the kernel sent to the drive with a stream id or placement handle, counted per NVMe Write command (--collector.placement_trace). WalabPlacementNotObserved fires below placement_observed_min during a placement run.", 12,
		d.Q(alerts.PlacementRatio+`{`+devSel+`}`, "{{device}}"))
	b.Timeseries("Write bytes by placement id", "Bps", "Per directive and stream id / placement handle.", 12,
		d.Q(`sum by (device, directive, placement_id) (rate(walab_nvme_write_bytes_total{`+devSel+`}[`+rate+`]))`, "{{device}} {{directive}} {{placement_id}}"))
	b.Stat("Tracer running", "none", "walab_placement_trace_up; walab_placement_trace_error_info names the reason when it is 0.", 24,
		d.Q(`walab_placement_trace_up{instance=~"$instance"}`, "{{instance}}"))
	b.Row("Directives and FDP")
	b.Stat("Directive enabled", "none", "1 = enabled (identify, streams, data_placement).", 8,
		d.Q(`walab_nvme_directive_enabled{`+devSel+`}`, "{{device}} {{directive}}"))
	b.Stat("FDP enabled", "none", "", 8, d.Q(`walab_nvme_fdp_enabled{`+devSel+`}`, "{{device}}"))
	b.Stat("Placement hints effective", "none", "Whether file write-life hints reach the device on this kernel.", 8,
		d.Q(`walab_placement_hints_effective{`+devSel+`}`, "{{device}} {{reason}}"))
	b.Timeseries("Open streams", "short", "", 12,
		d.Q(`walab_nvme_streams_open{`+devSel+`}`, "{{device}} open"),
		d.Q(`walab_nvme_streams_namespace_allocated{`+devSel+`}`, "{{device}} allocated"))
	b.Timeseries("Placement daemon running", "none", "", 12, d.Q(`walab_placement_daemon_running{instance=~"$instance"}`, "{{daemon}}"))
	b.Row("Write-life hints on data files")
	b.Timeseries("Files per write hint", "short", "", 12, d.Q(`walab_write_hint_files{instance=~"$instance"}`, "{{dir}} {{hint}}"))
	b.Timeseries("Bytes per write hint", "bytes", "", 12, d.Q(`walab_write_hint_bytes{instance=~"$instance"}`, "{{dir}} {{hint}}"))
	return b
}
