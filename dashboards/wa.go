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
		"a vendor layout (a built-in one, docs/nvme-decoders.md, or a configured nvme.layouts name; unit_confirmed=false: its byte unit is unconfirmed, its WA is not affected), endurance_group (Endurance Group log), "+
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
	// walab compare's comparability checks, live, where PromQL can say
	// them: each panel shows the candidate now and the baseline at the same
	// point of its run.
	b.Row("Comparability checks (walab compare's, live)")
	b.Labels("Same drive", "walab compare: the baseline and the candidate must run on the same drive (serial) and firmware, unless --allow-different-device.", 12,
		d.Q(`max by (device, serial, firmware) (walab_nvme_info{`+devSel+`})`, "candidate {{device}} serial {{serial}} firmware {{firmware}}"),
		d.Q(`max by (device, serial, firmware) (walab_nvme_info{`+devSel+`} offset $baseline_offset)`, "baseline {{device}} serial {{serial}} firmware {{firmware}}"))
	b.Timeseries("Host write rate: candidate vs baseline", "Bps", "walab compare: the two runs must offer the same load: the host write rate over the compared rounds within 25% (--rate-tolerance).", 12,
		d.Q(alerts.HostRate+"{"+devSel+"}", "{{device}} candidate"),
		d.Q(alerts.HostRate+"{"+devSel+"} offset $baseline_offset", "{{device}} baseline"))
	b.Timeseries("Write bytes that carried a placement id (observed)", "percentunit", "Placement tracer: share of the write bytes sent with a stream id or placement handle. walab compare: at least 50% in the candidate, at most 5% in the baseline.", 12,
		d.Q(alerts.PlacementRatio+"{"+devSel+"}", "{{device}} candidate"),
		d.Q(alerts.PlacementRatio+"{"+devSel+"} offset $baseline_offset", "{{device}} baseline"))
	b.Timeseries("Streams/FDP enabled (inferred)", "none", "1 while the drive has Streams or FDP enabled (directive and feature state, not per-command proof). walab compare without tracer data: on in the candidate, off in the baseline.", 12,
		d.Q(`max by (device) (walab_nvme_directive_enabled{`+devSel+`,directive=~"streams|data_placement"} or walab_nvme_fdp_enabled{`+devSel+`})`, "{{device}} candidate"),
		d.Q(`max by (device) (walab_nvme_directive_enabled{`+devSel+`,directive=~"streams|data_placement"} offset $baseline_offset or walab_nvme_fdp_enabled{`+devSel+`} offset $baseline_offset)`, "{{device}} baseline"))
	b.Timeseries("Filesystem fill", "percentunit", "Fullest watched filesystem (used / size). walab compare: the fill at the two starts within 10 points (--fill-tolerance).", 12,
		d.Q(`max(walab_filesystem_used_bytes{instance=~"$instance"} / walab_filesystem_size_bytes{instance=~"$instance"})`, "candidate"),
		d.Q(`max(walab_filesystem_used_bytes{instance=~"$instance"} offset $baseline_offset / walab_filesystem_size_bytes{instance=~"$instance"} offset $baseline_offset)`, "baseline"))
	b.Timeseries("md sync in the last hour", "none", "1 when an md resync/check ran in the hour: walab compare leaves such rounds out and fails 'no md sync' when one overlaps the compared rounds.", 12,
		d.Q(alerts.RAIDSyncInWindow, "{{array}} candidate"),
		d.Q(alerts.RAIDSyncInWindow+" offset $baseline_offset", "{{array}} baseline"))
	b.Timeseries("Throughput: candidate vs baseline", "none", "Committed transactions per second: loadgen's, or the servers' COMMITs for load from another client (sysbench, BenchmarkSQL). walab compare prints the change and its 95% interval.", 24,
		d.Q("sum("+alerts.TxnRate+"{"+targetSel+"})", "loadgen candidate"),
		d.Q("sum("+alerts.TxnRate+"{"+targetSel+"} offset $baseline_offset)", "loadgen baseline"),
		d.Q("sum("+alerts.ServerTxnRate+"{"+targetSel+"})", "server COMMITs candidate"),
		d.Q("sum("+alerts.ServerTxnRate+"{"+targetSel+"} offset $baseline_offset)", "server COMMITs baseline"))
	b.Row("Runs")
	b.Labels("Runs seen", "walab_loadgen_run_info over the time range.", 24,
		d.Q(`max by (run_id, scenario, workload, target) (walab_loadgen_run_info{`+targetSel+`})`, "{{run_id}} {{scenario}} {{workload}} on {{target}}"))
	return b
}
