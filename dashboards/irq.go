package main

import d "github.com/walab/walab/internal/dashboard"

func irqCPU() *d.Builder {
	b := withVars(d.New("walab-irq-cpu", "walab / IRQ & CPU", "irq"))
	b.Row("Interrupts")
	b.Heatmap("Interrupts per CPU", "short", "NVMe and NIC interrupts per second, one row per CPU. Needs irq.per_cpu: true in the exporter config (the lab sets it; fleets export one counter a device).", 24,
		d.Q(`sum by (cpu) (rate(walab_irq_interrupts_total{`+devSel+`}[`+rate+`]))`, "{{cpu}}"))
	b.Timeseries("Busiest CPU's share of a device's interrupts", "percentunit", "Near 1: one CPU takes them all.", 12,
		d.Q(`walab_irq_busiest_cpu_share_ratio{`+devSel+`}`, "{{device}}"))
	b.Timeseries("IRQ lines off the device's NUMA node", "short", "", 12,
		d.Q(`sum by (device) (walab_irq_off_numa_node{`+devSel+`})`, "{{device}}"))
	b.Timeseries("Affinity width", "short", "CPUs in each line's affinity list.", 12,
		d.Q(`max by (device, kind) (walab_irq_affinity_cpus{`+devSel+`})`, "{{device}} {{kind}}"))
	b.Timeseries("Softirqs", "ops", "", 12,
		d.Q(`sum by (type) (rate(walab_softirqs_total{instance=~"$instance",type=~"NET_RX|NET_TX|BLOCK|TIMER|SCHED"}[`+rate+`]))`, "{{type}}"))
	b.Row("CPU")
	b.Timeseries("CPU by mode", "percentunit", "Average over the host's cores (walab_cpu_seconds_total; no node_exporter needed).", 12,
		d.Q(`avg by (mode) (rate(walab_cpu_seconds_total{instance=~"$instance",mode!="idle"}[`+rate+`]))`, "{{mode}}"))
	b.Timeseries("Busiest core in softirq / irq", "percentunit", "Share of the busiest core's time in softirq and hardirq (seed 003: one core at 99.71% softirq). WalabSoftirqConcentrated fires above softirq_busiest_max.", 12,
		d.Q(`instance:walab_cpu_softirq_busiest:ratio_rate5m{instance=~"$instance"}`, "softirq {{instance}}"),
		d.Q(`instance:walab_cpu_irq_busiest:ratio_rate5m{instance=~"$instance"}`, "irq {{instance}}"))
	b.Timeseries("Watched processes: CPU", "percentunit", "Cores used by mysqld, the placement daemon, a RAID daemon (process: names), user + system.", 12,
		d.Q(`sum by (name) (rate(walab_process_cpu_seconds_total{instance=~"$instance"}[`+rate+`]))`, "{{name}}"))
	b.Timeseries("NIC traffic and drops", "Bps", "Bytes through the NICs of irq: interfaces; drops on the right axis scale (packets/s).", 12,
		d.Q(`rate(walab_network_receive_bytes_total{instance=~"$instance"}[`+rate+`])`, "{{device}} rx"),
		d.Q(`rate(walab_network_transmit_bytes_total{instance=~"$instance"}[`+rate+`])`, "{{device}} tx"),
		d.Q(`rate(walab_network_receive_drop_total{instance=~"$instance"}[`+rate+`])`, "{{device}} rx drops/s"))
	b.Heatmap("Softirq share per core", "percentunit", "One row per core: a hot row is a core drowning in softirq.", 24,
		d.Q(`sum by (cpu) (rate(walab_cpu_seconds_total{instance=~"$instance",mode="softirq"}[`+rate+`]))`, "{{cpu}}"))
	b.Stat("irqbalance running", "none", "Compare with the plan's expectation (walab experiment check irqbalance): seed 000 stops it, seed 001 keeps it on.", 12, d.Q(`walab_irqbalance_running{instance=~"$instance"}`, "irqbalance"))
	return b
}

func innodb() *d.Builder {
	b := withVars(d.New("walab-innodb", "walab / InnoDB", "innodb"))
	b.Row("Write path")
	b.Stat("MySQL up", "none", "", 6, d.Q(`walab_mysql_up{`+targetSel+`}`, "{{target}}"))
	b.Labels("Settings", "", 18, d.Q(`walab_mysql_settings_info{`+targetSel+`}`,
		"{{target}}: flush_method={{flush_method}} doublewrite={{doublewrite}} flush_log_at_trx_commit={{flush_log_at_trx_commit}} sync_binlog={{sync_binlog}}"))
	b.Timeseries("Bytes written", "Bps", "", 12,
		d.Q(`rate(walab_innodb_data_written_bytes_total{`+targetSel+`}[`+rate+`])`, "{{target}} data"),
		d.Q(`rate(walab_innodb_os_log_written_bytes_total{`+targetSel+`}[`+rate+`])`, "{{target}} redo"),
		d.Q(`rate(walab_mysql_binlog_written_bytes_total{`+targetSel+`}[`+rate+`])`, "{{target}} binlog"))
	b.Timeseries("Pages written and flushed", "ops", "", 12,
		d.Q(`rate(walab_innodb_pages_written_total{`+targetSel+`}[`+rate+`])`, "{{target}} written"),
		d.Q(`rate(walab_innodb_buffer_pool_pages_flushed_total{`+targetSel+`}[`+rate+`])`, "{{target}} flushed"),
		d.Q(`rate(walab_innodb_doublewrite_pages_written_total{`+targetSel+`}[`+rate+`])`, "{{target}} doublewrite"))
	b.Timeseries("fsyncs and writes", "ops", "", 12,
		d.Q(`rate(walab_innodb_data_fsyncs_total{`+targetSel+`}[`+rate+`])`, "{{target}} fsyncs"),
		d.Q(`rate(walab_innodb_data_writes_total{`+targetSel+`}[`+rate+`])`, "{{target}} writes"))
	b.Row("Redo and buffer pool")
	b.Timeseries("Checkpoint age", "bytes", "Against the redo capacity: near it, InnoDB flushes synchronously.", 12,
		d.Q(`walab_innodb_checkpoint_age_bytes{`+targetSel+`}`, "{{target}} age"),
		d.Q(`walab_innodb_log_capacity_bytes{`+targetSel+`}`, "{{target}} capacity"))
	b.Timeseries("Dirty pages", "percentunit", "", 12,
		d.Q(`walab_innodb_buffer_pool_pages{`+targetSel+`,state="dirty"} / ignoring (state) walab_innodb_buffer_pool_pages{`+targetSel+`,state="total"}`, "{{target}}"))
	b.Timeseries("History list length", "short", "", 12, d.Q(`walab_innodb_history_list_length{`+targetSel+`}`, "{{target}}"))
	return b
}

func load() *d.Builder {
	b := withVars(d.New("walab-load", "walab / load", "loadgen"))
	b.Row("Throughput")
	b.Timeseries("tpmC (New-Order per minute)", "short", "", 12,
		d.Q(`60 * target:walab_loadgen_new_order_transactions:rate5m{`+targetSel+`}`, "{{target}}"))
	b.Timeseries("tpmTOTAL", "short", "", 12,
		d.Q(`60 * target:walab_loadgen_transactions:rate5m{`+targetSel+`}`, "{{target}}"))
	b.Timeseries("Transactions per second by type", "ops", "", 12,
		d.Q(`sum by (target, type) (rate(walab_loadgen_transactions_total{`+targetSel+`,outcome="committed"}[`+rate+`]))`, "{{target}} {{type}}"))
	b.Timeseries("Statements per second", "ops", "", 12,
		d.Q(`sum by (target, kind) (rate(walab_loadgen_statements_total{`+targetSel+`}[`+rate+`]))`, "{{target}} {{kind}}"))
	b.Row("Latency and errors")
	b.Timeseries("Transaction latency", "s", "p50/p95/p99 over all types.", 12,
		d.Q(`histogram_quantile(0.5, sum by (target, le) (rate(walab_loadgen_transaction_duration_seconds_bucket{`+targetSel+`}[`+rate+`])))`, "{{target}} p50"),
		d.Q(`histogram_quantile(0.95, sum by (target, le) (rate(walab_loadgen_transaction_duration_seconds_bucket{`+targetSel+`}[`+rate+`])))`, "{{target}} p95"),
		d.Q(`histogram_quantile(0.99, sum by (target, le) (rate(walab_loadgen_transaction_duration_seconds_bucket{`+targetSel+`}[`+rate+`])))`, "{{target}} p99"))
	b.Timeseries("Error ratio", "percentunit", "", 12,
		d.Q(`target:walab_loadgen_transaction_errors:ratio_rate5m{`+targetSel+`}`, "{{target}}"))
	b.Timeseries("Outcomes", "ops", "", 12,
		d.Q(`sum by (target, outcome) (rate(walab_loadgen_transactions_total{`+targetSel+`,outcome!="committed"}[`+rate+`]))`, "{{target}} {{outcome}}"))
	b.Timeseries("Terminals and reconnects", "short", "", 12,
		d.Q(`walab_loadgen_active_terminals{`+targetSel+`}`, "{{target}} terminals"),
		d.Q(`increase(walab_loadgen_reconnects_total{`+targetSel+`}[`+rate+`])`, "{{target}} reconnects"))
	return b
}
