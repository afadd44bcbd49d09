package main

import (
	"github.com/walab/walab/alerts"
	d "github.com/walab/walab/internal/dashboard"
)

// raid is seed 001's table as a board: per md/dm array, the chain array
// writes → member writes → NAND, RAID WA against the level's theory, the
// software's share, and each member drive's own WA.
func raid() *d.Builder {
	b := withVars(d.New("walab-raid", "walab / RAID (array → members → NAND)", "raid", "md"))
	b.Variable("array", "Array", `label_values(walab_blockdev_member_info{instance=~"$instance"}, array)`)
	arr := `{instance=~"$instance",array=~"$array"}`
	b.Row("Chain")
	b.Timeseries("Bytes written per layer", "Bps", "Array (what the filesystem wrote), the sum over its members (data + parity/copies), and the NAND bytes of the drives at the bottom of its stack.", 12,
		d.Q(alerts.ArrayWrittenRate+arr, "{{array}} array"),
		d.Q(alerts.ArrayMemberWrittenRate+arr, "{{array}} members"),
		d.Q(alerts.ArrayNANDRate+arr, "{{array}} NAND"))
	b.Timeseries("RAID WA against theory", "short", "Member writes per array write (seed 001: 1.518) and the level's full-stripe value (RAID 5 (2+1): 1.5); hourly values are absent while an md sync ran in the hour.", 12,
		d.Q(alerts.RAIDWARate+arr, "{{array}} RAID WA"),
		d.Q(alerts.RAIDWA1h+arr, "{{array}} RAID WA, hourly"),
		d.Q(alerts.RAIDTheoretical+arr, "{{array}} theory"))
	b.Timeseries("RAID software overhead", "percentunit", "1 − theory / RAID WA over the hour: seed 001's (1.518 − 1.5) / 1.518 = 1.19%.", 8,
		d.Q(alerts.RAIDOverhead1h+arr, "{{array}}"))
	b.Timeseries("Array to NAND WA", "short", "NAND bytes of the member drives per array byte: RAID WA × the drives' own WA.", 8,
		d.Q(alerts.RAIDNANDWARate+arr, "{{array}}"),
		d.Q(alerts.RAIDNANDWA1h+arr, "{{array}} hourly"))
	b.Stat("Sync running / members missing", "none", "walab_md_sync_active (resync, check, ...) and walab_md_degraded_disks: either makes the hour's WA invalid.", 8,
		d.Q(`max by (device, action) (walab_md_sync_active{instance=~"$instance",device=~"$array"})`, "{{device}} {{action}}"),
		d.Q(`walab_md_degraded_disks{instance=~"$instance",device=~"$array"}`, "{{device}} degraded"))
	b.Timeseries("RAID latency overhead (array await − slowest member's)", "s", "The array's average time per read and per write (iostat r_await, w_await of the md/dm device) minus its slowest member's: what the RAID software adds. Seed 001 reads it for its software RAID. Absent while a member had no such request.", 24,
		latencyQueries(arr)...)
	b.Row("Members")
	b.Timeseries("Writes per member", "Bps", "Block-layer bytes written to each member (iostat wkB/s x 1024).", 12,
		d.Q(`walab_blockdev_member_info`+arr+` * on (instance, job, device) group_left () rate(walab_blockdev_written_bytes_total{instance=~"$instance"}[`+rate+`])`, "{{array}} {{device}}"))
	b.Timeseries("Member drives' own WA (NAND / host), hourly", "short", "Each drive at the bottom of the array's stack: seed 001 reads this per member after the RAID WA.", 12,
		d.Q(`max by (instance, job, array, controller) (walab_blockdev_leaf_info`+arr+`) * on (instance, job, controller) group_left () label_replace(`+alerts.WA1h+`{instance=~"$instance"}, "controller", "$1", "device", "(.+)")`, "{{array}} {{controller}}"))
	b.Labels("Arrays", "Level, members and chunk of each md array.", 24,
		d.Q(`walab_md_info{instance=~"$instance",device=~"$array"}`, "{{device}}: {{level}}"))
	return b
}

// latencyQueries are the read and write overheads of the selected arrays.
func latencyQueries(arr string) []d.Query {
	var qs []d.Query
	for _, l := range alerts.RAIDLatencies {
		qs = append(qs, d.Q(l.Overhead+arr, "{{array}} "+l.Op))
	}
	return qs
}
