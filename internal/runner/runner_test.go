package runner

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/driver"
	"github.com/walab/walab/internal/testenv"
	"github.com/walab/walab/internal/workload"
)

// sleeper is a workload whose transaction is BEGIN; SELECT SLEEP(d); COMMIT
// on the real server, counting how many transactions returned.
type sleeper struct {
	noData
	d        float64
	tag      string // in the statement, to find this run's sessions in the processlist
	returned atomic.Int64
}

// noData is the part of a test workload that has no tables: nothing to
// prepare, check or clean up.
type noData struct{}

func (noData) Prepare(context.Context, *sql.DB, workload.PrepareOptions) error { return nil }
func (noData) Check(context.Context, *sql.DB) ([]workload.CheckResult, error)  { return nil, nil }
func (noData) Cleanup(context.Context, *sql.DB) error                          { return nil }

func (s *sleeper) Name() string                                     { return "sleeper" }
func (s *sleeper) TxTypes() []string                                { return []string{"nap"} }
func (s *sleeper) NewTerminal(int, *rand.Rand) workload.SQLTerminal { return sleeperTerm{s} }

type sleeperTerm struct{ s *sleeper }

func (t sleeperTerm) Next() string              { return "nap" }
func (t sleeperTerm) KeyingTime(string) float64 { return 0 }
func (t sleeperTerm) ThinkTime(string) float64  { return 0 }
func (t sleeperTerm) Run(ctx context.Context, conn *sql.Conn, _ string) (workload.Result, error) {
	defer t.s.returned.Add(1)
	var r workload.Result
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return r, err
	}
	r.Other++
	var x int
	if err := conn.QueryRowContext(ctx, "SELECT SLEEP(?) /* "+t.s.tag+" */", t.s.d).Scan(&x); err != nil {
		return r, err
	}
	r.Reads++
	_, err := conn.ExecContext(ctx, "COMMIT")
	if err == nil {
		r.Other++
	}
	return r, err
}

func txCount(m *Metrics, outcome string) float64 {
	return testutil.ToFloat64(m.Txns.WithLabelValues("t", "sleeper", "nap", outcome))
}

// TestInFlightCountedOnce stops runs while every terminal is inside a
// transaction: drained ones count as committed, ones cut off by the drain
// timeout as errors, each exactly once in the result and in Prometheus.
func TestInFlightCountedOnce(t *testing.T) {
	db, _ := testenv.MariaDB(t, "walab_test_runner")
	for _, tc := range []struct {
		name      string
		sleep     float64
		drain     time.Duration
		wantDrain bool
	}{
		{"drained", 0.3, 10 * time.Second, true},
		{"cut off by the drain timeout", 5, 200 * time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &sleeper{d: tc.sleep, tag: fmt.Sprintf("inflight-%d", time.Now().UnixNano())}
			reg := prometheus.NewRegistry()
			m := NewMetrics(reg)
			ctx, cancel := context.WithCancel(context.Background())
			// Stop once the terminals are inside their transactions.
			go func() {
				for {
					var n int
					if db.QueryRow("SELECT COUNT(*) FROM information_schema.processlist WHERE info LIKE ?", "SELECT SLEEP%"+w.tag+"%").Scan(&n) == nil && n >= 3 {
						cancel()
						return
					}
					time.Sleep(20 * time.Millisecond)
				}
			}()
			res, err := Run(ctx, Config{Target: "t", SQL: w, DB: db, Threads: 3, DrainTimeout: tc.drain, Metrics: m, RunID: "x", Scenario: "test",
				OnError: func(term int, c driver.Class, err error) { t.Logf("terminal %d: %v: %v", term, c, err) }})
			require.NoError(t, err)
			require.Equal(t, tc.wantDrain, res.Drained)
			returned := uint64(w.returned.Load())
			if tc.wantDrain {
				require.Equal(t, returned, res.Transactions, "every transaction that ran is counted once")
			} else {
				// The three abandoned ones are still sleeping on the server.
				require.Equal(t, returned, res.Transactions)
				require.Equal(t, uint64(3), res.Errors)
			}
			require.Equal(t, float64(res.Transactions), txCount(m, OutCommitted))
			require.Equal(t, float64(res.Errors), txCount(m, OutError))
			if tc.wantDrain {
				require.Zero(t, res.Errors)
				require.GreaterOrEqual(t, res.Transactions, uint64(3))
			} else {
				require.Equal(t, uint64(3), res.Errors)
			}
			require.Equal(t, 0.0, testutil.ToFloat64(m.Active.WithLabelValues("t")))
			require.Equal(t, 1.0, testutil.ToFloat64(m.RunInfo.WithLabelValues("x", "sleeper", "test", "t")))
			require.Equal(t, float64(res.Reads), testutil.ToFloat64(m.Statements.WithLabelValues("t", "read")))
			n, err := testutil.GatherAndCount(reg, "walab_loadgen_transaction_duration_seconds")
			require.NoError(t, err)
			require.Equal(t, 1, n)
		})
	}
}

// TestRateCount runs a short paced run and compares the completed count
// with the virtual schedule's slots due by the stop, not with wall time.
func TestRateCount(t *testing.T) {
	db, _ := testenv.MariaDB(t, "walab_test_runner")
	w := &sleeper{d: 0, tag: "rate"}
	const rate, threads = 20, 4
	res, err := Run(context.Background(), Config{SQL: w, DB: db, Threads: threads, Rate: rate, Duration: 2 * time.Second})
	require.NoError(t, err)
	require.Zero(t, res.Errors)
	due := NewSchedule(res.Start, rate).Due(res.Stop)
	// Terminals never run ahead of the schedule.
	require.LessOrEqual(t, res.Transactions, uint64(due))
	// Slots due at the stop either completed or were claimed by a terminal
	// still waiting for its slot time (at most one per terminal), unless the
	// server was too slow to keep up: then the lateness shows in latency.
	keptUp := res.All.LatMaxMs < 1000*threads/rate
	if keptUp {
		require.GreaterOrEqual(t, res.Transactions+threads, uint64(due))
	} else {
		t.Logf("server too slow to keep up (max latency %.0f ms): only the upper bound is checked", res.All.LatMaxMs)
	}
}

func TestConfigErrors(t *testing.T) {
	_, err := Run(context.Background(), Config{})
	require.ErrorContains(t, err, "Workload or SQL is required")
	_, err = Run(context.Background(), Config{SQL: &sleeper{}, Threads: 1})
	require.ErrorContains(t, err, "DB is required with an SQL workload")
	db, err := sql.Open("mysql", "u@tcp(127.0.0.1:1)/x")
	require.NoError(t, err)
	_, err = Run(context.Background(), Config{Workload: named{name: "cpu"}, SQL: &sleeper{}, DB: db, Threads: 1})
	require.ErrorContains(t, err, "and not both")
	_, err = Run(context.Background(), Config{Workload: named{name: "cpu"}, DB: db, Threads: 1})
	require.ErrorContains(t, err, "and for it alone")
	_, err = Run(context.Background(), Config{SQL: &sleeper{}, DB: db})
	require.ErrorContains(t, err, "Threads must be >= 1 (got 0)")
	_, err = Run(context.Background(), Config{SQL: &sleeper{}, DB: db, Threads: 1, Rate: -1})
	require.ErrorContains(t, err, ">= 0")
}
