package runner

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"time"
)

// intervalLine is sysbench 1.0.20's --report-interval line for the
// interval between prev and cur (db_driver.c, db_report_intermediate).
// err/s counts failed attempts (retried or given up), as sysbench's err/s
// counts its ignored errors.
func intervalLine(prev, cur *snapshot, start time.Time, threads int, pct float64) string {
	secs := intervalSeconds(prev, cur)
	p, c := prev.all(), cur.all()
	events := float64(c.completed() - p.completed())
	errs := float64(c.Out[oRetried] + c.Out[oError] - p.Out[oRetried] - p.Out[oError])
	rd := float64(cur.Reads - prev.Reads)
	wr := float64(cur.Writes - prev.Writes)
	ot := float64(cur.Others - prev.Others)
	reconn := float64(cur.Reconnects - prev.Reconnects)
	h := c.Hist.sub(&p.Hist)
	return fmt.Sprintf("[ %ds ] thds: %d tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f) lat (ms,%s%%): %4.2f err/s: %4.2f reconn/s: %4.2f",
		elapsed(cur, start), threads, events/secs, (rd+wr+ot)/secs,
		rd/secs, wr/secs, ot/secs, fmtPct(pct), h.percentile(pct), errs/secs, reconn/secs)
}

// connFailLine is loadgen's own line beside sysbench's, printed only for
// an interval in which connecting failed: failed connection attempts per
// second. sysbench has no such figure (it stops when it loses a
// connection), so it is not on sysbench's line.
func connFailLine(prev, cur *snapshot, start time.Time) (string, bool) {
	fails := cur.ConnFails - prev.ConnFails
	if fails == 0 {
		return "", false
	}
	return fmt.Sprintf("[ %ds ] loadgen: conn-fail/s: %4.2f", elapsed(cur, start), float64(fails)/intervalSeconds(prev, cur)), true
}

func intervalSeconds(prev, cur *snapshot) float64 {
	if secs := cur.At.Sub(prev.At).Seconds(); secs > 0 {
		return secs
	}
	return 1
}

func elapsed(cur *snapshot, start time.Time) int {
	return int(math.Round(cur.At.Sub(start).Seconds()))
}

// fileioLine is sysbench fileio's --report-interval line.
func fileioLine(prev, cur *snapshot, start time.Time, pct float64) string {
	secs := intervalSeconds(prev, cur)
	p, c := prev.all(), cur.all()
	h := c.Hist.sub(&p.Hist)
	return fmt.Sprintf("[ %ds ] reads: %4.2f MiB/s writes: %4.2f MiB/s fsyncs: %4.2f/s latency (ms,%s%%): %4.3f",
		elapsed(cur, start),
		float64(cur.ReadBytes-prev.ReadBytes)/mib/secs, float64(cur.WroteBytes-prev.WroteBytes)/mib/secs,
		float64(cur.Others-prev.Others)/secs, fmtPct(pct), h.percentile(pct))
}

const mib = 1 << 20

func fmtPct(p float64) string {
	if p == math.Trunc(p) {
		return fmt.Sprintf("%d", int(p))
	}
	return fmt.Sprintf("%g", p)
}

// TypeResult is one transaction type's totals.
type TypeResult struct {
	Type         string  `json:"type"`
	Committed    uint64  `json:"committed"`
	UserRollback uint64  `json:"user_rollback"`
	Retried      uint64  `json:"retried"`
	Errors       uint64  `json:"errors"`
	LatMinMs     float64 `json:"latency_min_ms"`
	LatAvgMs     float64 `json:"latency_avg_ms"`
	LatMaxMs     float64 `json:"latency_max_ms"`
	LatP50Ms     float64 `json:"latency_p50_ms"`
	LatP90Ms     float64 `json:"latency_p90_ms"`
	LatP95Ms     float64 `json:"latency_p95_ms"`
	LatP99Ms     float64 `json:"latency_p99_ms"`
	LatPctMs     float64 `json:"latency_percentile_ms"` // at Result.Percentile
	LatSumMs     float64 `json:"latency_sum_ms"`
}

// Result is a run's totals: the final summary and the --result-json file.
type Result struct {
	Target     string    `json:"target"`
	Workload   string    `json:"workload"`
	RunID      string    `json:"run_id"`
	Scenario   string    `json:"scenario"`
	Threads    int       `json:"threads"`
	Rate       float64   `json:"rate_limit_tps"`
	Start      time.Time `json:"start"`
	Stop       time.Time `json:"stop"` // no new transactions after this
	End        time.Time `json:"end"`  // in-flight transactions drained
	Drained    bool      `json:"drained"`
	Percentile float64   `json:"percentile"`

	TotalSeconds float64 `json:"total_seconds"`
	Transactions uint64  `json:"transactions"` // completed: committed + user_rollback
	Reads        uint64  `json:"reads"`
	Writes       uint64  `json:"writes"`
	Other        uint64  `json:"other"`
	Retried      uint64  `json:"retried"`
	Errors       uint64  `json:"errors"`
	Reconnects   uint64  `json:"reconnects"`
	// ConnFailures are failed connection attempts; UnreachableSeconds the
	// time the target could not be reached (no terminal held a connection
	// and attempts failed).
	ConnFailures       uint64  `json:"connection_failures"`
	UnreachableSeconds float64 `json:"unreachable_seconds"`
	TPS                float64 `json:"tps"`
	QPS                float64 `json:"qps"`

	All   TypeResult   `json:"all"`
	Types []TypeResult `json:"types"`

	EventsAvg     float64 `json:"events_avg"`
	EventsStddev  float64 `json:"events_stddev"`
	ExecAvgSec    float64 `json:"exec_avg_seconds"`
	ExecStddevSec float64 `json:"exec_stddev_seconds"`

	// TPC-C, when NewOrderType is set: BenchmarkSQL's tpmC counts every
	// New-Order that completed (committed or user rollback) per minute of
	// the session (start to end), tpmTOTAL all completed transactions.
	NewOrderType string  `json:"new_order_type,omitempty"`
	TpmC         float64 `json:"tpmC,omitempty"`
	TpmTotal     float64 `json:"tpmTOTAL,omitempty"`

	// An I/O workload (fileio): bytes moved; Reads, Writes and Other are
	// its read, write and fsync requests.
	// NeverConnected counts the terminals that never got a connection,
	// by the last error they saw (too many connections, access denied).
	NeverConnected map[string]int `json:"never_connected,omitempty"`

	// Head opens the summary of a Headed workload (sysbench cpu).
	Head string `json:"-"`

	IO           bool   `json:"io,omitempty"`
	ReadBytes    uint64 `json:"read_bytes,omitempty"`
	WrittenBytes uint64 `json:"written_bytes,omitempty"`
}

func typeResult(name string, t *typeSnap, pct float64) TypeResult {
	tr := TypeResult{
		Type: name, Committed: t.Out[oCommitted], UserRollback: t.Out[oRollback],
		Retried: t.Out[oRetried], Errors: t.Out[oError],
		LatMinMs: float64(t.MinNs) / 1e6, LatMaxMs: float64(t.MaxNs) / 1e6, LatSumMs: float64(t.SumNs) / 1e6,
		LatP50Ms: t.Hist.percentile(50), LatP90Ms: t.Hist.percentile(90),
		LatP95Ms: t.Hist.percentile(95), LatP99Ms: t.Hist.percentile(99), LatPctMs: t.Hist.percentile(pct),
	}
	if n := t.completed(); n > 0 {
		tr.LatAvgMs = tr.LatSumMs / float64(n)
	}
	// A bucket bound can lie past the largest value seen; never report a
	// percentile above max (sysbench issue #486).
	for _, p := range []*float64{&tr.LatP50Ms, &tr.LatP90Ms, &tr.LatP95Ms, &tr.LatP99Ms, &tr.LatPctMs} {
		*p = min(*p, tr.LatMaxMs)
	}
	return tr
}

func newResult(cfg *Config, types []string, start, stop, end time.Time, s *snapshot, drained bool) *Result {
	all := s.all()
	r := &Result{
		Target: cfg.Target, Workload: cfg.info().Name(), RunID: cfg.RunID, Scenario: cfg.Scenario,
		Threads: cfg.Threads, Rate: cfg.Rate, Start: start, Stop: stop, End: end, Drained: drained,
		Percentile:   cfg.Percentile,
		TotalSeconds: end.Sub(start).Seconds(),
		Transactions: all.completed(), Reads: s.Reads, Writes: s.Writes, Other: s.Others,
		Retried: all.Out[oRetried], Errors: all.Out[oError], Reconnects: s.Reconnects, ConnFailures: s.ConnFails,
		ReadBytes: s.ReadBytes, WrittenBytes: s.WroteBytes, NeverConnected: s.NeverConnected,
		All: typeResult("all", &all, cfg.Percentile),
	}
	for _, i := range sortedTypes(types) {
		r.Types = append(r.Types, typeResult(types[i], &s.Types[i], cfg.Percentile))
	}
	if r.TotalSeconds > 0 {
		r.TPS = float64(r.Transactions) / r.TotalSeconds
		r.QPS = float64(r.Reads+r.Writes+r.Other) / r.TotalSeconds
	}
	ev := make([]float64, len(s.PerTermEvents))
	for i, e := range s.PerTermEvents {
		ev[i] = float64(e)
	}
	r.EventsAvg, r.EventsStddev = meanStddev(ev)
	ex := make([]float64, len(s.PerTermBusy))
	for i, b := range s.PerTermBusy {
		ex[i] = b.Seconds()
	}
	r.ExecAvgSec, r.ExecStddevSec = meanStddev(ex)
	return r
}

// SetNewOrderType turns on the TPC-C figures for the type named t.
func (r *Result) SetNewOrderType(t string) {
	r.NewOrderType = t
	mins := r.TotalSeconds / 60
	if mins <= 0 {
		return
	}
	for _, tr := range r.Types {
		if tr.Type == t {
			r.TpmC = float64(tr.Committed+tr.UserRollback) / mins
		}
	}
	r.TpmTotal = float64(r.Transactions) / mins
}

// WriteSummary writes the final summary: BenchmarkSQL's when the workload
// has a headline type (tpmC), else sysbench's.
func (r *Result) WriteSummary(w io.Writer) {
	switch {
	case r.NewOrderType != "":
		fmt.Fprintln(w)
		r.WriteTPCC(w)
	case r.IO:
		r.WriteFileIO(w)
	case r.Head != "":
		fmt.Fprint(w, r.Head)
		r.writeGeneral(w)
	default:
		r.WriteSysbench(w)
	}
	if n := r.NeverConnectedTotal(); n > 0 {
		fmt.Fprintf(w, "\nwarning: %d of %d terminals never connected, so the run had %d:", n, r.Threads, r.Threads-n)
		for _, reason := range sortedKeys(r.NeverConnected) {
			fmt.Fprintf(w, " %d: %s;", r.NeverConnected[reason], reason)
		}
		fmt.Fprintln(w)
	}
}

// NeverConnectedTotal is how many terminals never got a connection.
func (r *Result) NeverConnectedTotal() int {
	n := 0
	for _, c := range r.NeverConnected {
		n += c
	}
	return n
}

// sortedKeys are m's keys in order.
func sortedKeys(m map[string]int) []string { return slices.Sorted(maps.Keys(m)) }

// WriteFileIO writes sysbench 1.0.20 fileio's final summary.
func (r *Result) WriteFileIO(w io.Writer) {
	secs := max(r.TotalSeconds, 1e-9)
	fmt.Fprintf(w, "\nFile operations:\n")
	fmt.Fprintf(w, "    reads/s:                      %.2f\n", float64(r.Reads)/secs)
	fmt.Fprintf(w, "    writes/s:                     %.2f\n", float64(r.Writes)/secs)
	fmt.Fprintf(w, "    fsyncs/s:                     %.2f\n", float64(r.Other)/secs)
	fmt.Fprintf(w, "\nThroughput:\n")
	fmt.Fprintf(w, "    read, MiB/s:                  %.2f\n", float64(r.ReadBytes)/mib/secs)
	fmt.Fprintf(w, "    written, MiB/s:               %.2f\n", float64(r.WrittenBytes)/mib/secs)
	r.writeGeneral(w)
	r.writeIOPSArithmetic(w)
	if r.Errors > 0 {
		fmt.Fprintf(w, "\nerrors: %d failed I/O requests (see the log)\n", r.Errors)
	}
}

// writeIOPSArithmetic is seed 004's conversion of throughput to IOPS
// ("iops = 1M / 16kb * 33.45"): MiB/s x 1024 KiB / the request size, a
// loadgen block after sysbench's summary. The request size is the mean
// over the run (bytes / requests): with sequential merging it is larger
// than --file-block-size. It equals reads/s and writes/s above, which is
// the check on the arithmetic.
func (r *Result) writeIOPSArithmetic(w io.Writer) {
	secs := max(r.TotalSeconds, 1e-9)
	var lines []string
	for _, d := range []struct {
		name       string
		ops, bytes uint64
	}{{"read", r.Reads, r.ReadBytes}, {"written", r.Writes, r.WrittenBytes}} {
		if d.ops == 0 {
			continue
		}
		kib := float64(d.bytes) / float64(d.ops) / 1024
		mibs := float64(d.bytes) / mib / secs
		lines = append(lines, fmt.Sprintf("    %-8s %.2f MiB/s x 1024 KiB / %g KiB per request = %.2f IOPS\n", d.name+",", mibs, kib, mibs*1024/kib))
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "loadgen IOPS from throughput (MiB/s x 1 MiB / request size, seed 004):\n%s", strings.Join(lines, ""))
}

// WriteSysbench writes sysbench 1.0.20's final summary.
func (r *Result) WriteSysbench(w io.Writer) {
	secs := max(r.TotalSeconds, 1e-9)
	total := r.Reads + r.Writes + r.Other
	ignored := r.Retried + r.Errors
	fmt.Fprintf(w, "SQL statistics:\n")
	fmt.Fprintf(w, "    queries performed:\n")
	fmt.Fprintf(w, "        read:                            %d\n", r.Reads)
	fmt.Fprintf(w, "        write:                           %d\n", r.Writes)
	fmt.Fprintf(w, "        other:                           %d\n", r.Other)
	fmt.Fprintf(w, "        total:                           %d\n", total)
	fmt.Fprintf(w, "    transactions:                        %-6d (%.2f per sec.)\n", r.Transactions, float64(r.Transactions)/secs)
	fmt.Fprintf(w, "    queries:                             %-6d (%.2f per sec.)\n", total, float64(total)/secs)
	fmt.Fprintf(w, "    ignored errors:                      %-6d (%.2f per sec.)\n", ignored, float64(ignored)/secs)
	fmt.Fprintf(w, "    reconnects:                          %-6d (%.2f per sec.)\n", r.Reconnects, float64(r.Reconnects)/secs)
	r.writeGeneral(w)
	r.writeReach(w, "    ")
}

// writeReach says how often connecting failed and how long the target
// was unreachable, when either happened: loadgen's own figures, after
// sysbench's summary (indented, under a heading of their own) or in
// BenchmarkSQL's (unindented).
func (r *Result) writeReach(w io.Writer, indent string) {
	if r.ConnFailures == 0 && r.UnreachableSeconds == 0 {
		return
	}
	secs := max(r.TotalSeconds, 1e-9)
	if indent != "" {
		fmt.Fprintf(w, "loadgen connection statistics:\n")
	}
	fmt.Fprintf(w, "%sfailed connection attempts:          %-6d (%.2f per sec.)\n", indent, r.ConnFailures, float64(r.ConnFailures)/secs)
	fmt.Fprintf(w, "%starget unreachable:                  %.1fs (%.1f%% of the run)\n", indent, r.UnreachableSeconds, 100*r.UnreachableSeconds/secs)
}

// writeGeneral is the part of sysbench's summary every test prints
// (sysbench.c, sb_report_cumulative), to the byte.
func (r *Result) writeGeneral(w io.Writer) {
	fmt.Fprintf(w, "\nGeneral statistics:\n")
	fmt.Fprintf(w, "    total time:                          %.4fs\n", r.TotalSeconds)
	fmt.Fprintf(w, "    total number of events:              %d\n", r.Transactions)
	fmt.Fprintf(w, "\nLatency (ms):\n")
	fmt.Fprintf(w, "         min: %39.2f\n", r.All.LatMinMs)
	fmt.Fprintf(w, "         avg: %39.2f\n", r.All.LatAvgMs)
	fmt.Fprintf(w, "         max: %39.2f\n", r.All.LatMaxMs)
	if p := r.Percentile; p == math.Trunc(p) {
		fmt.Fprintf(w, "        %3dth percentile: %27.2f\n", int(p), r.All.LatPctMs)
	} else { // sysbench takes whole percentiles only
		fmt.Fprintf(w, "        %sth percentile: %*.2f\n", fmtPct(p), 30-len(fmtPct(p)), r.All.LatPctMs)
	}
	fmt.Fprintf(w, "         sum: %39.2f\n", r.All.LatSumMs)
	fmt.Fprintf(w, "\nThreads fairness:\n")
	fmt.Fprintf(w, "    events (avg/stddev):           %.4f/%3.2f\n", r.EventsAvg, r.EventsStddev)
	fmt.Fprintf(w, "    execution time (avg/stddev):   %.4f/%3.2f\n\n", r.ExecAvgSec, r.ExecStddevSec)
	if !r.Drained {
		fmt.Fprintf(w, "warning: in-flight transactions did not finish within the drain timeout; they are counted as errors\n")
	}
}

// WriteTPCC writes BenchmarkSQL's end-of-run lines and a per-type table.
func (r *Result) WriteTPCC(w io.Writer) {
	fmt.Fprintf(w, "Measured tpmC (NewOrders) = %.2f\n", r.TpmC)
	fmt.Fprintf(w, "Measured tpmTOTAL = %.2f\n", r.TpmTotal)
	fmt.Fprintf(w, "Session Start     = %s\n", r.Start.Format("2006-01-02 15:04:05"))
	fmt.Fprintf(w, "Session End       = %s\n", r.End.Format("2006-01-02 15:04:05"))
	fmt.Fprintf(w, "Transaction Count = %d\n\n", r.Transactions)
	fmt.Fprintf(w, "%-14s %10s %9s %8s %7s %9s %9s %9s %9s %9s\n",
		"type", "completed", "rollback", "retried", "errors", "avg_ms", "p50_ms", "p90_ms", "p99_ms", "max_ms")
	rows := append(append([]TypeResult{}, r.Types...), r.All)
	for _, t := range rows {
		fmt.Fprintf(w, "%-14s %10d %9d %8d %7d %9.2f %9.2f %9.2f %9.2f %9.2f\n",
			t.Type, t.Committed+t.UserRollback, t.UserRollback, t.Retried, t.Errors,
			t.LatAvgMs, t.LatP50Ms, t.LatP90Ms, t.LatP99Ms, t.LatMaxMs)
	}
	fmt.Fprintf(w, "\nreconnects: %d, total time: %.4fs\n", r.Reconnects, r.TotalSeconds)
	r.writeReach(w, "")
	if !r.Drained {
		fmt.Fprintf(w, "warning: in-flight transactions did not finish within the drain timeout; they are counted as errors\n")
	}
}

// WriteJSON writes results (one per target) to path atomically.
func WriteJSON(path string, results []*Result) error {
	b, err := json.MarshalIndent(struct {
		Results []*Result `json:"results"`
	}{results}, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Banner is the header sysbench prints before a run.
func Banner(threads int, rate float64, prefix string, describe func(io.Writer)) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Running the test with following options:\nNumber of threads: %d\n", threads)
	if rate > 0 {
		fmt.Fprintf(&b, "Target transaction rate: %g/sec\n", rate)
	}
	if prefix != "" {
		fmt.Fprintf(&b, "Target: %s\n", prefix)
	}
	if describe != nil {
		b.WriteString("\n")
		describe(&b)
	}
	b.WriteString("\nThreads started!\n\n")
	return b.String()
}
