package testenv

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/promql"
)

// Fetch gets a path of an exporter (/metrics, /api/v1/sim/placement) the
// way the test reaches it: over HTTP, or through another network
// namespace.
type Fetch func(path string) ([]byte, error)

// SimFSWrites is what the exporter's FUSE filesystem (sim.fs) served and
// what its drive counted.
type SimFSWrites struct {
	Written, Pages, Calls float64 // walab_simfs_{written_bytes,host_written_bytes,writes}_total, summed over the classes
	DriveHost             uint64  // the drive's host bytes less what its re-preconditioning wrote
	Precondition          uint64  // what re-preconditioning wrote (precondition_written_bytes)
}

// RequireSimFSHostBytes holds a drive under the exporter's filesystem to
// the bytes written through it: the drive's host bytes are exactly the
// pages the filesystem sent (the drive's re-preconditioning, which writes
// no file, counted apart), at least the bytes written and at most two
// 4 KiB pages more per write call (a write's partial first and last
// pages). A database on it may still write (its page cleaner): the
// figures are taken between two equal reads of the drive.
func RequireSimFSHostBytes(t testing.TB, fetch Fetch) SimFSWrites {
	t.Helper()
	var w SimFSWrites
	for try := 0; ; try++ {
		before, _ := driveHostBytes(t, fetch)
		w = simfsTotals(t, fetch)
		if w.DriveHost, w.Precondition = driveHostBytes(t, fetch); w.DriveHost == before || try == 50 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("through the filesystem: %.0f bytes written in %.0f calls; drive host bytes %d (pages %.0f)", w.Written, w.Calls, w.DriveHost, w.Pages)
	require.Positive(t, w.Written)
	require.Equal(t, uint64(w.Pages), w.DriveHost, "the drive's host bytes are the filesystem's pages")
	require.GreaterOrEqual(t, w.Pages, w.Written)
	require.LessOrEqual(t, w.Pages, w.Written+2*4096*w.Calls)
	return w
}

// driveHostBytes is the simulated drive's host bytes (its state endpoint),
// less what re-preconditioning wrote (a plan's precondition-drive steps):
// those reach the drive without passing through the filesystem. It also
// returns those.
func driveHostBytes(t testing.TB, fetch Fetch) (host, precondition uint64) {
	t.Helper()
	var state struct {
		Host         uint64 `json:"host_written_bytes"`
		Precondition uint64 `json:"precondition_written_bytes"`
	}
	b, err := fetch("/api/v1/sim/placement")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &state), "%s", b)
	return state.Host - state.Precondition, state.Precondition
}

// simfsTotals sums walab_simfs_{written_bytes,host_written_bytes,writes}_total over the classes.
func simfsTotals(t testing.TB, fetch Fetch) SimFSWrites {
	t.Helper()
	body, err := fetch("/metrics")
	require.NoError(t, err)
	families, err := parseMetrics(bytes.NewReader(body))
	require.NoError(t, err)
	require.Contains(t, families, promql.SimFSServing, "the exporter serves the filesystem's metrics")
	return SimFSWrites{
		Written: counterSum(families[promql.SimFSWrittenBytes]),
		Pages:   counterSum(families[promql.SimFSHostWrittenBytes]),
		Calls:   counterSum(families[promql.SimFSWrites]),
	}
}
