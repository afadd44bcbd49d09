package runner

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSharedHistogramsCountOnce: terminals that share a shard's histograms
// are each counted once in a snapshot, and a run's histograms do not grow
// with its terminals.
func TestSharedHistogramsCountOnce(t *testing.T) {
	require.Len(t, histogramShards(330, 5), histShards)
	require.Len(t, histogramShards(3, 5), 3)
	require.Len(t, histogramShards(0, 5), 1)

	hists := histogramShards(20, 2)
	terms := make([]*termStats, 20)
	for i := range terms {
		terms[i] = newTermStats(hists[i%len(hists)])
		terms[i].types[0].observe(time.Duration(i+1) * time.Millisecond)
		terms[i].types[0].out[oCommitted].Add(1)
	}
	s := takeSnapshot(time.Now(), terms, 2)
	require.Equal(t, uint64(20), s.Types[0].Hist.total())
	require.Equal(t, uint64(20), s.Types[0].completed())
	require.Zero(t, s.Types[1].Hist.total())
	require.InDelta(t, 20.0, s.Types[0].Hist.percentile(100), 1, "the slowest terminal's 20 ms")
}
