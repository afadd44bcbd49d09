package runner

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/golden"
	"github.com/walab/walab/internal/workload"
)

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Assert(t, filepath.Join("testdata", name), got)
}

// named is only a label source for summaries.
type named struct {
	workload.Workload
	name string
}

func (n named) Name() string { return n.name }

// fixture builds two terminals' stats with a fixed history.
func fixture(types int) []*termStats {
	terms := []*termStats{newTermStats(make([]histogram, types)), newTermStats(make([]histogram, types))}
	for i, t := range terms {
		for k := range 100 * (i + 1) {
			ti := k % types
			o := oCommitted
			if ti == 0 && k%50 == 0 {
				o = oRollback
			}
			t.types[ti].out[o].Add(1)
			t.types[ti].observe(time.Duration(1+k%20) * time.Millisecond)
			t.events.Add(1)
		}
		t.types[0].out[oRetried].Add(2)
		t.types[0].out[oError].Add(1)
		t.reads.Add(1400 * uint64(i+1))
		t.writes.Add(400 * uint64(i+1))
		t.others.Add(200 * uint64(i+1))
		t.reconnects.Add(uint64(i))
		t.connFails.Add(uint64(3 * i))
		t.busyNs.Add(int64(9*time.Second + time.Duration(i)*500*time.Millisecond))
	}
	return terms
}

func TestIntervalLineGolden(t *testing.T) {
	start := time.Unix(1700000000, 0)
	empty := takeSnapshot(start, []*termStats{newTermStats(make([]histogram, 1))}, 1)
	cur := takeSnapshot(start.Add(10*time.Second), fixture(1), 1)
	var b bytes.Buffer
	b.WriteString(intervalLine(empty, cur, start, 8, 95) + "\n")
	b.WriteString(intervalLine(cur, cur, start, 8, 99) + "\n") // an idle interval
	b.WriteString(intervalLine(empty, cur, start, 2, 99.9) + "\n")
	// loadgen's own line: after an interval with failed connection
	// attempts only.
	l, ok := connFailLine(empty, cur, start)
	require.True(t, ok)
	b.WriteString(l + "\n")
	_, ok = connFailLine(cur, cur, start)
	require.False(t, ok, "no failed attempts: no line")
	checkGolden(t, "interval_lines.txt", b.Bytes())
}

func TestSummaryGolden(t *testing.T) {
	start := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	end := start.Add(20 * time.Second)

	cfg := &Config{Target: "a", Workload: named{name: "oltp_read_write"}, Threads: 2, Percentile: 95, RunID: "r1", Scenario: "baseline"}
	r := newResult(cfg, []string{"oltp_read_write"}, start, end, end, takeSnapshot(end, fixture(1), 1), true)
	var b bytes.Buffer
	r.WriteSysbench(&b)
	checkGolden(t, "summary_sysbench.txt", b.Bytes())

	types := []string{"new_order", "payment", "order_status", "delivery", "stock_level"}
	cfg = &Config{Target: "b", Workload: named{name: "tpcc"}, Threads: 2, Percentile: 95}
	r = newResult(cfg, types, start, end, end.Add(time.Second), takeSnapshot(end, fixture(len(types)), len(types)), false)
	r.SetNewOrderType("new_order")
	r.UnreachableSeconds = 4.5
	// 300 transactions, 60 New-Orders (6 of them user rollbacks) in 21 s.
	require.InDelta(t, 60/(21.0/60), r.TpmC, 1e-9)
	require.InDelta(t, 300/(21.0/60), r.TpmTotal, 1e-9)
	b.Reset()
	r.WriteTPCC(&b)
	checkGolden(t, "summary_tpcc.txt", b.Bytes())

	// fileio: seed 004's MB/s-to-IOPS arithmetic after sysbench's summary:
	// 2000 reads of 16 KiB and 500 writes of 64 KiB in 20 s.
	cfg = &Config{Target: "c", Workload: named{name: "fileio"}, Threads: 2, Percentile: 95}
	rf := newResult(cfg, []string{"read", "write", "fsync"}, start, end, end, takeSnapshot(end, fixture(3), 3), true)
	rf.IO, rf.Reads, rf.ReadBytes, rf.Writes, rf.WrittenBytes, rf.Other = true, 2000, 2000*16<<10, 500, 500*64<<10, 0
	b.Reset()
	rf.WriteSummary(&b)
	require.Contains(t, b.String(), "    reads/s:                      100.00\n")
	require.Contains(t, b.String(), "    read,    1.56 MiB/s x 1024 KiB / 16 KiB per request = 100.00 IOPS\n")
	require.Contains(t, b.String(), "    written, 1.56 MiB/s x 1024 KiB / 64 KiB per request = 25.00 IOPS\n")
	checkGolden(t, "summary_fileio.txt", b.Bytes())

	path := filepath.Join(t.TempDir(), "r.json")
	require.NoError(t, WriteJSON(path, []*Result{r}))
	j, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(j), `"tpmC": 171.42857142857144`)
}

func TestProgressLine(t *testing.T) {
	e := workload.ProgressEvent{Rows: 2500, TotalRows: 10000}
	require.Equal(t, "[t] 2500/10000 rows (25.0%) 500 rows/s ETA 15s", progressLine("[t] ", e, 5*time.Second))
	require.Equal(t, "0/0 rows (0.0%) 0 rows/s ETA ?", progressLine("", workload.ProgressEvent{}, 0))

	var b bytes.Buffer
	now := time.Unix(0, 0)
	p := NewProgress(&b, false, "", func() time.Time { return now })
	p.Update(workload.ProgressEvent{Rows: 1, TotalRows: 10}) // first: printed
	now = now.Add(time.Second)
	p.Update(workload.ProgressEvent{Rows: 2, TotalRows: 10}) // within 5 s: skipped
	now = now.Add(5 * time.Second)
	p.Update(workload.ProgressEvent{Rows: 10, TotalRows: 10})
	p.Done() // the final state is already printed
	require.Equal(t, "1/10 rows (10.0%) 0 rows/s ETA ?\n10/10 rows (100.0%) 2 rows/s ETA 0s\n", b.String())
}

// TestProgressBar: on a terminal the bar (schollz/progressbar) is redrawn
// in place with the count, the unit and the rate, follows a total that
// grows, and ends its line once, at completion or when the load stops.
func TestProgressBar(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, true, "[t] ", nil)
	p.Update(workload.ProgressEvent{Rows: 5, TotalRows: 10})
	p.Update(workload.ProgressEvent{Rows: 10, TotalRows: 40}) // the total grew
	p.Update(workload.ProgressEvent{Rows: 40, TotalRows: 40})
	p.Done()
	out := b.String()
	require.Contains(t, out, "\r", "redrawn in place")
	require.Contains(t, out, "[t] loading")
	require.Contains(t, out, "(40/40, ")
	require.Contains(t, out, " rows/s)")
	require.Equal(t, 1, strings.Count(out, "\n"), "one line end, at completion: %q", out)
	require.True(t, strings.HasSuffix(out, "\n"))

	b.Reset()
	p = NewProgress(&b, true, "", nil)
	p.Update(workload.ProgressEvent{Rows: 3, TotalRows: 10})
	p.Done() // interrupted: the bar stays at 3/10 and its line ends
	require.Contains(t, b.String(), "(3/10, ")
	require.Equal(t, 1, strings.Count(b.String(), "\n"))
}
