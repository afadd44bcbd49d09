package simload

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/walab/walab/internal/ftl"
	"github.com/walab/walab/internal/simload/rules"
)

// placementWA runs the same generator (same seed) with and without
// placement on a fresh drive and returns both WAs.
func placementWA(t *testing.T, spec Spec, table *rules.Table, spare float64, logical uint32, warm, measure uint64) (off, on float64) {
	t.Helper()
	for _, placement := range []bool{false, true} {
		g, err := New(spec, logical, table, 2026)
		require.NoError(t, err)
		m, err := ftl.New(ftl.Config{LogicalPages: logical, BlockPages: 64, PageSize: 4096, SpareFactor: spare, Streams: int(table.MaxID()) + 1})
		require.NoError(t, err)
		wa := run(t, g, m, placement, warm, measure)
		require.NoError(t, m.Check())
		if placement {
			on = wa
		} else {
			off = wa
		}
	}
	return off, on
}

func TestHotColdStreamsLowerWA(t *testing.T) {
	const logical = 1 << 15
	off, on := placementWA(t, Spec{Name: "hotcold", HotAccess: 0.9, HotSpace: 0.1, FillStart: 0.9}, defaultRules(t), 0.1, logical, 6*logical, 4*logical)
	t.Logf("hot/cold 90/10: one stream WA %.3f, two streams WA %.3f", off, on)
	require.Less(t, on, off*0.97)
}

// TestMySQLRulesLowerWA is the lab's claim in miniature: the MySQL-like mix
// with an astream-like rule table (redo, binlog, tablespaces, doublewrite,
// undo on their own streams) has lower WA than the same traffic on one stream.
func TestMySQLRulesLowerWA(t *testing.T) {
	const logical = 1 << 16
	off, on := placementWA(t, Spec{Name: "mysql", FillStart: 0.65, FillMax: 0.9}, defaultRules(t), 0.07, logical, 12*logical, 8*logical)
	t.Logf("mysql mix: one stream WA %.3f, astream-like rules WA %.3f (%.1f%% lower)", off, on, 100*(1-on/off))
	require.Less(t, on, off*0.95)
}
