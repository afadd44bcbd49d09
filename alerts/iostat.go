package alerts

import "fmt"

// IostatField is one column of sysstat's `iostat -x` as a recording rule
// over walab_blockdev_* (the blockdev collector), computed with sysstat's
// own formulas (rd_io.c/iostat.c: rates over the interval, awaits as time
// per request, aqu-sz as weighted time per second, %util as busy time per
// second). The record is in base units; Scale turns it into iostat's unit.
// A per-request column (await, areq-sz, %rrqm) is absent while the device
// has no such request, where iostat prints 0.00.
type IostatField struct {
	Column string  // iostat's header: r/s, wkB/s, w_await, %util
	Record string  // recording rule name
	Unit   string  // Grafana unit of the record
	Scale  float64 // record x Scale = iostat's printed value
	expr   func(rate func(metric string) string) string
}

// Expr is the rule's expression for a rate window.
func (f IostatField) Expr(window string) string {
	return f.expr(func(m string) string { return fmt.Sprintf("rate(walab_blockdev_%s_total[%s])", m, window) })
}

func iostatRate(column, metric, unit string, scale float64) IostatField {
	return IostatField{Column: column, Record: "device:walab_blockdev_" + metric + ":rate5m", Unit: unit, Scale: scale,
		expr: func(rate func(string) string) string { return rate(metric) }}
}

// iostatPer is a per-request average: num per den, absent when den is idle.
func iostatPer(column, record, num, den, unit string, scale float64) IostatField {
	return IostatField{Column: column, Record: record, Unit: unit, Scale: scale,
		expr: func(rate func(string) string) string { return rate(num) + " / (" + rate(den) + " > 0)" }}
}

// iostatMergedShare is %rrqm: merged / (merged + completed).
func iostatMergedShare(column, kind string) IostatField {
	merged, done := kind+"s_merged", kind+"s_completed"
	return IostatField{Column: column, Record: "device:walab_blockdev_" + merged + ":ratio_rate5m", Unit: "percentunit", Scale: 100,
		expr: func(rate func(string) string) string {
			return rate(merged) + " / ((" + rate(merged) + " + " + rate(done) + ") > 0)"
		}}
}

// IostatFields lists the columns of `iostat -x` (sysstat 12.6) in its order,
// then seed 004's IOPS (r/s + w/s).
var IostatFields = []IostatField{
	iostatRate("r/s", "reads_completed", "iops", 1),
	iostatRate("rkB/s", "read_bytes", "Bps", 1.0/1024),
	iostatRate("rrqm/s", "reads_merged", "iops", 1),
	iostatMergedShare("%rrqm", "read"),
	iostatPer("r_await", "device:walab_blockdev_read_time_seconds_per_read:ratio_rate5m", "read_time_seconds", "reads_completed", "s", 1000),
	iostatPer("rareq-sz", "device:walab_blockdev_read_bytes_per_read:ratio_rate5m", "read_bytes", "reads_completed", "bytes", 1.0/1024),
	iostatRate("w/s", "writes_completed", "iops", 1),
	iostatRate("wkB/s", "written_bytes", "Bps", 1.0/1024),
	iostatRate("wrqm/s", "writes_merged", "iops", 1),
	iostatMergedShare("%wrqm", "write"),
	iostatPer("w_await", "device:walab_blockdev_write_time_seconds_per_write:ratio_rate5m", "write_time_seconds", "writes_completed", "s", 1000),
	iostatPer("wareq-sz", "device:walab_blockdev_written_bytes_per_write:ratio_rate5m", "written_bytes", "writes_completed", "bytes", 1.0/1024),
	iostatRate("d/s", "discards_completed", "iops", 1),
	iostatRate("dkB/s", "discarded_bytes", "Bps", 1.0/1024),
	iostatRate("drqm/s", "discards_merged", "iops", 1),
	iostatMergedShare("%drqm", "discard"),
	iostatPer("d_await", "device:walab_blockdev_discard_time_seconds_per_discard:ratio_rate5m", "discard_time_seconds", "discards_completed", "s", 1000),
	iostatPer("dareq-sz", "device:walab_blockdev_discarded_bytes_per_discard:ratio_rate5m", "discarded_bytes", "discards_completed", "bytes", 1.0/1024),
	iostatRate("f/s", "flushes_completed", "iops", 1),
	iostatPer("f_await", "device:walab_blockdev_flush_time_seconds_per_flush:ratio_rate5m", "flush_time_seconds", "flushes_completed", "s", 1000),
	iostatRate("aqu-sz", "io_time_weighted_seconds", "short", 1),
	iostatRate("%util", "io_time_seconds", "percentunit", 100),
	{Column: "IOPS", Record: "device:walab_blockdev_ios_completed:rate5m", Unit: "iops", Scale: 1,
		expr: func(rate func(string) string) string {
			return rate("reads_completed") + " + " + rate("writes_completed")
		}},
}

// Iostat returns the field of an iostat column, or false.
func Iostat(column string) (IostatField, bool) {
	for _, f := range IostatFields {
		if f.Column == column {
			return f, true
		}
	}
	return IostatField{}, false
}

func iostatRules(c Config) []Rule {
	rs := make([]Rule, 0, len(IostatFields))
	for _, f := range IostatFields {
		rs = append(rs, rec(f.Record, f.Expr(c.RateWindow)))
	}
	return rs
}
