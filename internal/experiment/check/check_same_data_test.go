package check

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestChecksumBudget: same_data's budget grows with the data, twice
// CHECKSUM TABLE's read at 100 MB/s: 4 h 27 min for seed 000's 4,050
// warehouses, about 800 GB in both instances (docs/seed000-nvme.md).
func TestChecksumBudget(t *testing.T) {
	for _, tc := range []struct {
		bytes float64
		want  time.Duration
	}{{0, 0}, {300e9, 100 * time.Minute}, {800e9, 4*time.Hour + 26*time.Minute + 40*time.Second}} {
		require.Equal(t, tc.want, checksumBudget(tc.bytes))
	}
}
