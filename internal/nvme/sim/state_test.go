package sim

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestStateFileKeepsLifetimeCounters: a drive restarted on its state file
// (as `make run` restarted, even after kill -9: the file is written before
// a reader sees new counters) continues its lifetime counters instead of
// starting lower, so the exporter's WA history and run marks survive.
func TestStateFileKeepsLifetimeCounters(t *testing.T) {
	cfg := smallConfig()
	cfg.StateFile = filepath.Join(t.TempDir(), "sim-state.json")
	clk := newClock()
	d, err := New(cfg, WithClock(clk.Now))
	require.NoError(t, err)
	clk.Add(30 * time.Second)
	first := d.Stats()
	require.NotZero(t, first.HostBytes)
	// No Close: the process was killed. What Stats returned is on disk.

	clk2 := newClock()
	d2, err := New(cfg, WithClock(clk2.Now))
	require.NoError(t, err)
	again := d2.Stats()
	require.GreaterOrEqual(t, again.HostBytes, first.HostBytes, "host bytes never go back")
	require.GreaterOrEqual(t, again.MediaBytes, first.MediaBytes)
	require.GreaterOrEqual(t, again.HostWriteCommands, first.HostWriteCommands)
	clk2.Add(10 * time.Second)
	later := d2.Stats()
	require.Greater(t, later.HostBytes, again.HostBytes)
	require.NoError(t, d2.Close())

	// Another drive's state (capacity changed): a new drive, the file replaced.
	other := cfg
	other.Capacity = 512 << 20
	d3, err := New(other, WithClock(newClock().Now))
	require.NoError(t, err)
	require.Less(t, d3.Stats().HostBytes, first.HostBytes)
	require.NoError(t, d3.Close())
}

// TestStateFileNotOurs: a file that is not the simulator's state is refused
// with its path, and left as it was.
func TestStateFileNotOurs(t *testing.T) {
	cfg := smallConfig()
	cfg.StateFile = filepath.Join(t.TempDir(), "precious.json")
	require.NoError(t, os.WriteFile(cfg.StateFile, []byte(`{"important": true}`), 0o600))
	_, err := New(cfg, WithClock(newClock().Now))
	require.ErrorContains(t, err, "precious.json is not a walab simulator state")
	b, err := os.ReadFile(cfg.StateFile)
	require.NoError(t, err)
	require.Equal(t, `{"important": true}`, string(b))

	link := filepath.Join(t.TempDir(), "link.json")
	require.NoError(t, os.Symlink(cfg.StateFile, link))
	cfg.StateFile = link
	_, err = New(cfg, WithClock(newClock().Now))
	require.Error(t, err, "a symlink is not followed")
}
