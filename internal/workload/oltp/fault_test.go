package oltp_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/driver"
	"github.com/walab/walab/internal/runner"
	"github.com/walab/walab/internal/testenv"
	"github.com/walab/walab/internal/workload"
	"github.com/walab/walab/internal/workload/oltp"
)

// TestFaults drives oltp_read_write on a private mariadbd, kills every
// client connection with KILL CONNECTION, then crashes and restarts the
// server. The run must go on through both (reconnecting with backoff),
// count the errors and reconnects, and leave a database that passes check.
func TestFaults(t *testing.T) {
	in := testenv.StartMariaDB(t)
	db, _ := in.Open("walab_test_oltp_faults")
	admin, _ := in.Open("")
	ctx := context.Background()
	opt := oltp.DefaultOptions("oltp_read_write")
	opt.Tables, opt.TableSize = 2, 2000
	w, err := oltp.New("oltp_read_write", opt)
	require.NoError(t, err)
	require.NoError(t, w.Prepare(ctx, db, workload.PrepareOptions{Workers: 2}))

	m := runner.NewMetrics(prometheus.NewRegistry())
	committed := func() float64 {
		return testutil.ToFloat64(m.Txns.WithLabelValues("faulty", "oltp_read_write", "oltp_read_write", runner.OutCommitted))
	}
	waitMore := func(than float64, what string) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for committed() < than+20 {
			require.True(t, time.Now().Before(deadline), "no progress %s (committed %v)", what, committed())
			time.Sleep(50 * time.Millisecond)
		}
	}

	runCtx, stop := context.WithCancel(ctx)
	var res *runner.Result
	var runErr error
	var wg sync.WaitGroup
	var mu sync.Mutex
	classes := map[driver.Class]int{}
	wg.Go(func() {
		res, runErr = runner.Run(runCtx, runner.Config{
			Target: "faulty", SQL: w, DB: db, Threads: 4, Seed: 7, Metrics: m,
			BackoffMin: 20 * time.Millisecond, BackoffMax: 300 * time.Millisecond,
			OnError: func(_ int, c driver.Class, _ error) { mu.Lock(); classes[c]++; mu.Unlock() },
		})
	})

	waitMore(0, "before the faults")
	// KILL CONNECTION every loadgen connection from an admin connection.
	rows, err := admin.Query("SELECT id FROM information_schema.processlist WHERE db = 'walab_test_oltp_faults' AND id <> CONNECTION_ID()")
	require.NoError(t, err)
	var ids []int64
	for rows.Next() {
		var id int64
		require.NoError(t, rows.Scan(&id))
		ids = append(ids, id)
	}
	require.NoError(t, rows.Err())
	require.NotEmpty(t, ids)
	for _, id := range ids {
		_, _ = admin.Exec(fmt.Sprintf("KILL CONNECTION %d", id)) // it may have ended already
	}
	waitMore(committed(), "after KILL CONNECTION")

	// Crash and restart the server.
	in.Kill()
	time.Sleep(300 * time.Millisecond) // terminals now fail and back off
	in.Restart()
	waitMore(committed(), "after the restart")
	stop()
	wg.Wait()
	require.NoError(t, runErr)

	require.GreaterOrEqual(t, res.Reconnects, uint64(4), "every terminal reconnected at least once")
	require.Greater(t, res.Errors, uint64(0))
	require.Equal(t, float64(res.Reconnects), testutil.ToFloat64(m.Reconnects.WithLabelValues("faulty")))
	mu.Lock()
	require.Greater(t, classes[driver.Connection], 0)
	mu.Unlock()

	// The run's pool may hold connections from before the restart; check on fresh ones.
	checkDB, _ := openDB(t, in.Addr, "walab_test_oltp_faults")
	checks, err := w.Check(ctx, checkDB)
	require.NoError(t, err)
	for _, c := range checks {
		require.True(t, c.Passed, "%s: %s", c.Name, c.Detail)
	}
}
