package cli

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRawReadPlan(t *testing.T) {
	const ms = time.Millisecond
	for _, tc := range []struct {
		name         string
		wait         time.Duration
		terminals    int
		userSetProcs bool
		procs        int
		wantWait     time.Duration
		wantProcs    int
	}{
		{"raised to a P per terminal and two", 2 * ms, 4, false, 2, 2 * ms, 6},
		{"enough Ps already", 2 * ms, 4, false, 8, 2 * ms, 8},
		{"never lowered", 2 * ms, 1, false, 16, 2 * ms, 16},
		{"the user's GOMAXPROCS is kept; too few Ps: no raw reads", 2 * ms, 4, true, 2, 0, 2},
		{"the user's GOMAXPROCS is kept; enough Ps: raw reads", 2 * ms, 4, true, 6, 2 * ms, 6},
		{"up to the bound", 2 * ms, maxRawReadProcs - 2, false, 2, 2 * ms, maxRawReadProcs},
		{"beyond the bound: no raw reads, Ps unchanged", 2 * ms, maxRawReadProcs - 1, false, 2, 0, 2},
		{"raw reads off: Ps unchanged", 0, 4, false, 2, 0, 2},
		{"a negative wait is off", -ms, 4, false, 2, 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wait, procs := rawReadPlan(tc.wait, tc.terminals, tc.userSetProcs, tc.procs)
			require.Equal(t, tc.wantWait, wait)
			require.Equal(t, tc.wantProcs, procs)
		})
	}
}
