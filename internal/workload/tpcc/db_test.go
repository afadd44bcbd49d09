package tpcc

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/workload"
)

// smallScale keeps the integration tests quick: 300 customers per district
// (each with its own last name, so lookups by name always find one) and
// 5000 items. TestFullWarehouseLoad covers the full scale.
var smallScale = scale{Items: 5000, Customers: 300}

func newTestWorkload(t testing.TB, opts Options) *Workload {
	t.Helper()
	w, err := New(opts)
	require.NoError(t, err)
	return w
}

// drive runs n transactions on each of terminals concurrent terminals, each
// on its own connection: a minimal stand-in for the runner. Deadlocks and
// lock wait timeouts are retried as the runner would.
func drive(t testing.TB, db *sql.DB, w *Workload, terminals, n int) (map[string]map[workload.Outcome]int, int64) {
	t.Helper()
	ctx := context.Background()
	var mu sync.Mutex
	counts := map[string]map[workload.Outcome]int{}
	var wg sync.WaitGroup
	var retries, statements atomic.Int64
	defer func() { t.Logf("%d deadlock/lock-wait retries", retries.Load()) }()
	errs := make(chan error, terminals)
	for id := range terminals {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := db.Conn(ctx)
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close()
			term := w.NewTerminal(id, rand.New(rand.NewPCG(uint64(id), 42)))
			defer term.(interface{ Close() error }).Close()
			for range n {
				tx := term.Next()
				var res workload.Result
				for attempt := 0; ; attempt++ {
					res, err = term.Run(ctx, conn, tx)
					if err != nil && retryable(err) && attempt < 10 {
						retries.Add(1)
						t.Logf("terminal %d retries %s: %v", id, tx, err)
						continue
					}
					break
				}
				if err != nil {
					errs <- err
					return
				}
				statements.Add(int64(res.Reads + res.Writes + res.Other))
				mu.Lock()
				if counts[tx] == nil {
					counts[tx] = map[workload.Outcome]int{}
				}
				counts[tx][res.Outcome]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	return counts, statements.Load()
}

func requireChecksPass(t testing.TB, db *sql.DB, w *Workload) []workload.CheckResult {
	t.Helper()
	res, err := w.Check(context.Background(), db)
	require.NoError(t, err)
	require.Len(t, res, 12)
	for _, r := range res {
		require.True(t, r.Passed, "%s: %s", r.Name, r.Detail)
	}
	return res
}
