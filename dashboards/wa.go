package main

import (
	"github.com/walab/walab/alerts"
	d "github.com/walab/walab/internal/dashboard"
)

func waOverview() *d.Builder {
	b := withVars(d.New("walab-wa-overview", "walab / WA overview", "wa"))
	b.Row("Write amplification")
	b.Stat("WA since run start", "none", "NAND bytes / host bytes since the run-start mark, from the exporter's own sampler.", 6,
		d.Q(alerts.WARun+"{"+devSel+"}", "{{device}}"))
	b.Stat("Hourly WA", "none", "NAND / host bytes over the last hour (seed 000's result_WA.txt third column).", 6,
		d.Q(alerts.WA1h+"{"+devSel+"}", "{{device}}"))
	b.Stat("WA over 24h", "none", "", 6, d.Q(alerts.WA24h+"{"+devSel+"}", "{{device}}"))
	b.Labels("NAND counter source", "Where the NAND counter comes from: fdp (FDP statistics log), ocp_c0 (OCP SMART log 0xC0), "+
		"a vendor layout (seed000_c0, intel_ca, memblaze_ca or a configured nvme.layouts name), endurance_group (Endurance Group log), "+
		"none (SMART only, no WA) or unknown (not probed yet). The simulator reports ocp_c0 with simulated=true.", 6,
		d.Q(`max by (device, source, model, simulated) (walab_nvme_info{`+devSel+`})`, "{{device}}: {{source}} ({{model}}, simulated={{simulated}})"))
	b.Timeseries("Hourly WA per device", "none", "Dashed line: the configured reference WA the regression alert compares with.", 12,
		d.Q(alerts.WA1h+"{"+devSel+"}", "{{device}} WA 1h"),
		d.Q(alerts.WAReference+`{device=~"$device"}`, "{{device}} reference"))
	b.Timeseries("NAND vs host bytes per hour", "bytes", "Increase of both counters over the last hour.", 12,
		d.Q(alerts.MediaIncrease1h+"{"+devSel+"}", "{{device}} NAND"),
		d.Q(alerts.HostIncrease1h+"{"+devSel+"}", "{{device}} host"))
	b.Timeseries("Exporter WA windows", "none", "walab_nvme_write_amplification per window (1h, 24h, run).", 12,
		d.Q(`walab_nvme_write_amplification{`+devSel+`}`, "{{device}} {{window}}"))
	b.Timeseries("Data filesystem fill", "percentunit", "", 12,
		d.Q(`walab_filesystem_used_bytes{instance=~"$instance"} / walab_filesystem_size_bytes{instance=~"$instance"}`, "{{path}}"))
	b.Row("Write chain: InnoDB -> block layer -> device host -> NAND")
	b.Timeseries("Bytes written per layer", "Bps", "The block layer is walab_blockdev_written_bytes_total of the namespaces in block_devices (alerts/config.yml); lab-wide sums.", 12,
		d.Q(alerts.LabInnoDBRate, "InnoDB (data + redo)"),
		d.Q(alerts.LabBlockRate, "block devices"),
		d.Q(alerts.LabHostRate, "device host"),
		d.Q(alerts.LabMediaRate, "NAND"))
	b.Timeseries("Amplification per layer", "none", "", 12,
		d.Q(alerts.LabBlockPerInnoDB, "block / InnoDB"),
		d.Q(alerts.LabHostPerBlock, "host / block"),
		d.Q(alerts.LabHostPerInnoDB, "host / InnoDB"))
	b.Timeseries("NAND bytes per transaction", "bytes", "Transaction-normalised cost: NAND bytes per committed New-Order and per committed transaction.", 24,
		d.Q(alerts.MediaPerNewOrder, "per New-Order"),
		d.Q(alerts.MediaPerTxn, "per transaction"))
	return b
}

func runComparison() *d.Builder {
	b := withVars(d.New("walab-run-comparison", "walab / run comparison", "wa"))
	b.Textbox("baseline_offset", "Baseline started this long before the candidate", "1d")
	b.Row("Baseline vs candidate, aligned by hour")
	b.Timeseries("Hourly WA: candidate vs baseline", "none",
		"Candidate: now. Baseline: the same hour of a run started $baseline_offset earlier. `walab compare` prints the exact table.", 12,
		d.Q(alerts.WA1h+"{"+devSel+"}", "{{device}} candidate"),
		d.Q(alerts.WA1h+"{"+devSel+"} offset $baseline_offset", "{{device}} baseline"))
	b.Timeseries("WA reduction vs baseline", "percentunit", "(baseline - candidate) / baseline; seed 000 saw about 12% with streams.", 12,
		d.Q("1 - "+alerts.WA1h+"{"+devSel+"} / ("+alerts.WA1h+"{"+devSel+"} offset $baseline_offset)", "{{device}}"))
	b.Timeseries("Steady state (SNIA, live)", "none", "1 while the last five hourly WA values meet SNIA's steady-state criterion (excursion <= 20%, slope excursion <= 10% of the mean), the test walab compare applies; the first 1 of a run is the hour it reached steady state.", 12,
		d.Q(alerts.WASteady+"{"+devSel+"}", "{{device}} candidate"),
		d.Q(alerts.WASteady+"{"+devSel+"} offset $baseline_offset", "{{device}} baseline"))
	b.Timeseries("WA reduction vs configured reference", "percentunit", "From alerts/config.yml reference_wa.", 12,
		d.Q(alerts.ReductionVsReference+"{"+devSel+"}", "{{device}}"))
	b.Timeseries("Hours since run start", "h", "", 12,
		d.Q(`(time() - walab_loadgen_run_start_timestamp_seconds{`+targetSel+`}) / 3600`, "{{target}}"))
	b.Row("Runs")
	b.Labels("Runs seen", "walab_loadgen_run_info over the time range.", 24,
		d.Q(`max by (run_id, scenario, workload, target) (walab_loadgen_run_info{`+targetSel+`})`, "{{run_id}} {{scenario}} {{workload}} on {{target}}"))
	return b
}
