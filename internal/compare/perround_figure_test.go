package compare

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPerformanceOverRoundsWithFigure: a compared round without a
// throughput figure (a partial round, one loadgen did not drive from end to
// end) is left out of the table's transactions/s, as the verdict leaves it
// out of its interval, so the table's change is the verdict's estimate and
// the table says over how many rounds.
func TestPerformanceOverRoundsWithFigure(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	r := &Result{Round: 5 * time.Second}
	hours := []Hour{{Hour: 3}, {Hour: 4}, {Hour: 5}, {Hour: 6}}
	r.Last, r.Perf = [2][]Hour{hours, hours}, [2][]Hour{hours, hours}
	r.Facts[0] = RunFacts{TxnSource: TxnLoadgen, Txn: []*float64{f(5000), nil, f(6000), f(5500)}} // 1100 TPS over 3 rounds
	r.Facts[1] = RunFacts{TxnSource: TxnLoadgen, Txn: []*float64{f(6050), f(6050), f(6050), f(6050)}}
	r.Verdict.Throughput = BatchMeans{Batch: 1}.RelChange(countPairs(r.Facts[0].Txn), countPairs(r.Facts[1].Txn))

	tps, n := r.RoundsTPS(0)
	require.NotNil(t, tps)
	require.InDelta(t, 1100, *tps, 1e-9)
	require.Equal(t, 3, n)
	require.InDelta(t, 0.10, r.Verdict.Throughput.Est, 1e-12)

	var b strings.Builder
	r.writePerformance(&b)
	out := b.String()
	require.Regexp(t, `transactions/s +1100\.00 +1210\.00 +\+10\.0%`, out, "the table's change is the verdict's estimate")
	require.Contains(t, out, "(throughput over the rounds with a figure: 3 of 4 baseline, 4 of 4 candidate;")

	r.Facts[0].Txn = []*float64{nil, nil, nil, nil}
	tps, n = r.RoundsTPS(0)
	require.Nil(t, tps, "no round with a figure: no figure, not 0")
	require.Zero(t, n)
}
