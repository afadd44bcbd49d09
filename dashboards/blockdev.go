package main

import (
	"strconv"

	"github.com/walab/walab/alerts"
	d "github.com/walab/walab/internal/dashboard"
	"github.com/walab/walab/internal/promql"
)

// blockDevices is sysstat's `iostat -x` as a board: one row per block
// device (NVMe namespaces, their partitions, md and dm devices above them),
// each panel a group of iostat columns, drawn from the recording rules
// alerts.IostatFields lists, in iostat's units.
func blockDevices() *d.Builder {
	b := withVars(d.New("walab-block-devices", "walab / block devices (iostat -x)", "blockdev", "iostat"))
	b.Variable("blockdev", "Block device", `label_values(walab_blockdev_info{instance=~"$instance"}, device)`)
	b.Row("Stack")
	b.Labels("Devices", "Each block device walab reads and its place in the stack: the NVMe controller of a namespace, the disk of a partition, the name of a dm device.", 24,
		d.Q(`walab_blockdev_info{instance=~"$instance",device=~"$blockdev"}`, "{{device}}: {{kind}} {{controller}}{{parent}}{{dm_name}}"))
	b.RepeatRow("iostat -x $blockdev", "blockdev")
	for _, p := range []struct {
		title, unit, help string
		cols              []string
	}{
		{"IOPS", "iops", "Requests completed per second (seed 004: IOPS = r/s + w/s).", []string{"IOPS", "r/s", "w/s", "d/s", "f/s"}},
		{"Throughput", "KBs", "kB/s as iostat prints it (1 kB = 1024 bytes).", []string{"rkB/s", "wkB/s", "dkB/s"}},
		{"Latency (await)", "ms", "Average time from issue to completion per request, queueing included.", []string{"r_await", "w_await", "d_await", "f_await"}},
		{"Request size", "kbytes", "Average request size in kB.", []string{"rareq-sz", "wareq-sz", "dareq-sz"}},
		{"Merges", "iops", "Requests merged per second before they reached the device, and their share.", []string{"rrqm/s", "wrqm/s", "drqm/s"}},
		{"Queue and utilisation", "short", "aqu-sz: average requests in flight; %util: share of time with at least one (near 100 on NVMe does not mean saturated: it serves many at once).", []string{"aqu-sz", "%util"}},
	} {
		var qs []d.Query
		for _, col := range p.cols {
			f, ok := alerts.Iostat(col)
			if !ok {
				panic("dashboards: no iostat field " + col)
			}
			expr := f.Record + `{instance=~"$instance",device=~"$blockdev"}`
			switch {
			case f.Scale > 1:
				expr += " * " + strconv.FormatFloat(f.Scale, 'g', -1, 64)
			case f.Scale < 1:
				expr += " / " + strconv.FormatFloat(1/f.Scale, 'g', -1, 64)
			}
			qs = append(qs, d.Q(expr, col))
		}
		b.Timeseries(p.title, p.unit, p.help, 8, qs...)
	}
	b.Timeseries("Request size distribution (io_size)", "bytes",
		"Median and 95th percentile of the I/O sizes submitted to the device per operation (bios, before merges and splits), from the io_size collector's histogram (BPF on block:block_bio_queue; off by default, --collector.io_size): seed 001's I/O-size profile, interpolated within power-of-two buckets. Empty without the collector.", 24,
		ioSizeQuantile(0.5), ioSizeQuantile(0.95))
	return b
}

// ioSizeQuantile is the q-quantile of $blockdev's request sizes per
// operation.
func ioSizeQuantile(q float64) d.Query {
	pct := strconv.FormatFloat(100*q, 'g', -1, 64)
	return d.Q(`histogram_quantile(`+strconv.FormatFloat(q, 'g', -1, 64)+`, sum by (op, le) (rate(`+promql.BlockdevIOSizeBucket+`{instance=~"$instance",device=~"$blockdev"}[`+rate+`])))`, "{{op}} p"+pct)
}
