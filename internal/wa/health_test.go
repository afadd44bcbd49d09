package wa

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestHealth: the sampler is healthy before its first round and after a
// round that read (a failed device is not its failure); a round whose
// read failed, or no round for three intervals, is unhealthy, and the next
// good round heals it.
func TestHealth(t *testing.T) {
	now := t0
	fail := false
	r := ReaderFunc(func(context.Context) (map[string]Counters, error) {
		if fail {
			return nil, errors.New("reader broke")
		}
		return map[string]Counters{"nvme0": {HostBytes: 1, MediaBytes: 2, OK: true}, "nvme1": {}}, nil
	})
	s, _ := newTestSampler(t, r, Options{Interval: time.Minute, Now: func() time.Time { return now }})
	require.NoError(t, s.Health(now), "before the first round")
	require.NoError(t, s.Sample(context.Background(), now))
	require.NoError(t, s.Health(now.Add(time.Minute)), "nvme1 failed its read: not the sampler's failure")

	fail = true
	require.Error(t, s.Sample(context.Background(), now))
	require.ErrorContains(t, s.Health(now), "reader broke")

	fail = false
	require.NoError(t, s.Sample(context.Background(), now))
	require.NoError(t, s.Health(now.Add(3*time.Minute)))
	require.ErrorContains(t, s.Health(now.Add(3*time.Minute+time.Second)), "no sampling round for 3m1s (interval 1m0s)")
}
