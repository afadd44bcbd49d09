package compare

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRoundsRefuseUnreadableSpan (issue 42, low): a run whose end mark is
// infinite or whose start is missing or not a number has no span; compare
// says so instead of "lasted -2562047h47m16s" or "lasted 0s".
func TestRoundsRefuseUnreadableSpan(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	for name, run := range map[string]Run{
		"infinite end": {ID: "r1", Start: start, End: time.Unix(math.MaxInt64/2, 0)},
		"no start":     {ID: "r1", End: start},
		"end first":    {ID: "r1", Start: start, End: start.Add(-time.Minute)},
	} {
		_, err := rounds(run, 10*time.Second)
		require.ErrorContains(t, err, "has no span walab can read", name)
		require.NotContains(t, err.Error(), "lasted", name)
	}
	r, err := rounds(Run{ID: "r2", Start: start, End: start.Add(time.Minute)}, 10*time.Second)
	require.NoError(t, err)
	require.Equal(t, start.Add(10*time.Second), r.Start)
	_, err = rounds(Run{ID: "r3", Start: start, End: start.Add(5 * time.Second)}, 10*time.Second)
	require.ErrorContains(t, err, "lasted 5s: less than one round")
}
