package compare

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestZeroToleranceIsExact: `walab compare --fill-tolerance=0` became 0.10
// because Compare read every zero tolerance as "unset". A tolerance given
// as 0 means exact (a least share of 0 asks for nothing); the default
// applies only to one not given at all.
func TestZeroToleranceIsExact(t *testing.T) {
	share := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		name  string
		set   func(*CheckOptions)
		b, c  RunFacts
		check func(*judgement)
		last  [2][]Hour
		want  string
	}{
		{"fill at start", func(c *CheckOptions) { c.FillTolerance = Tolerance(0) },
			RunFacts{FillStart: share(0.30)}, RunFacts{FillStart: share(0.31)}, checkFillAtStart, [2][]Hour{}, Fail},
		{"host write rate", func(c *CheckOptions) { c.RateTolerance = Tolerance(0) },
			RunFacts{}, RunFacts{}, checkHostRate, [2][]Hour{{{HostBytes: 100 * MiB}}, {{HostBytes: 101 * MiB}}}, Fail},
		{"placement (observed)", func(c *CheckOptions) { c.BaselineMaxShare = Tolerance(0) },
			RunFacts{PlacedShare: share(0.01)}, RunFacts{PlacedShare: share(0.9)}, checkPlacement, [2][]Hour{}, Fail},
		{"placement (observed)", func(c *CheckOptions) { c.PlacementMinShare = Tolerance(0) },
			RunFacts{PlacedShare: share(0)}, RunFacts{PlacedShare: share(0.3)}, checkPlacement, [2][]Hour{}, Pass},
	} {
		o := DefaultOptions()
		tc.set(&o.Checks)
		o = o.withDefaults()
		j := &judgement{r: &Result{Facts: [2]RunFacts{tc.b, tc.c}, Last: tc.last}, o: o, unit: "round", b: tc.b, c: tc.c}
		tc.check(j)
		require.Len(t, j.v.Checks, 1, tc.name)
		require.Equal(t, tc.want, j.v.Checks[0].Status, "%s: a tolerance of 0 is exact: %v", tc.name, j.v.Checks)
	}
	var unset CheckOptions
	d := unset.withDefaults()
	require.Equal(t, 0.10, *d.FillTolerance, "a tolerance not given is the default")
	require.Nil(t, unset.FillTolerance, "withDefaults leaves its receiver alone")
}
