package alerts

import (
	"fmt"
	"slices"
)

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

// iostatDirection is iostat's six columns of one request kind: r, w or d.
// op is the request (read), bytes its byte counter (read_bytes,
// written_bytes).
func iostatDirection(letter, op, bytes string) []IostatField {
	ops := op + "s"
	return []IostatField{
		iostatRate(letter+"/s", ops+"_completed", "iops", 1),
		iostatRate(letter+"kB/s", bytes, "Bps", 1.0/1024),
		iostatRate(letter+"rqm/s", ops+"_merged", "iops", 1),
		iostatMergedShare("%"+letter+"rqm", op),
		iostatPer(letter+"_await", "device:walab_blockdev_"+op+"_time_seconds_per_"+op+":ratio_rate5m", op+"_time_seconds", ops+"_completed", "s", 1000),
		iostatPer(letter+"areq-sz", "device:walab_blockdev_"+bytes+"_per_"+op+":ratio_rate5m", bytes, ops+"_completed", "bytes", 1.0/1024),
	}
}

// IostatFields lists the columns of `iostat -x` (sysstat 12.6) in its order,
// then seed 004's IOPS (r/s + w/s).
var IostatFields = slices.Concat(
	iostatDirection("r", "read", "read_bytes"),
	iostatDirection("w", "write", "written_bytes"),
	iostatDirection("d", "discard", "discarded_bytes"),
	[]IostatField{
		iostatRate("f/s", "flushes_completed", "iops", 1),
		iostatPer("f_await", "device:walab_blockdev_flush_time_seconds_per_flush:ratio_rate5m", "flush_time_seconds", "flushes_completed", "s", 1000),
		iostatRate("aqu-sz", "io_time_weighted_seconds", "short", 1),
		iostatRate("%util", "io_time_seconds", "percentunit", 100),
		{Column: "IOPS", Record: "device:walab_blockdev_ios_completed:rate5m", Unit: "iops", Scale: 1,
			expr: func(rate func(string) string) string {
				return rate("reads_completed") + " + " + rate("writes_completed")
			}},
	},
)

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
