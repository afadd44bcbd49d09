package runner

import (
	"context"
	"database/sql"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
	"github.com/walab/walab/internal/workload"
)

// marker is a workload whose terminal leaves a session variable set on its
// connection and whose Close fails when closeErr is set, as a terminal does
// that could not restore the session it changed.
type marker struct {
	noData
	closeErr error
}

func (m *marker) Name() string                                     { return "marker" }
func (m *marker) TxTypes() []string                                { return []string{"mark"} }
func (m *marker) NewTerminal(int, *rand.Rand) workload.SQLTerminal { return markerTerm{m} }

type markerTerm struct{ m *marker }

func (t markerTerm) Next() string              { return "mark" }
func (t markerTerm) KeyingTime(string) float64 { return 0 }
func (t markerTerm) ThinkTime(string) float64  { return 0 }
func (t markerTerm) Close() error              { return t.m.closeErr }
func (t markerTerm) Run(ctx context.Context, conn *sql.Conn, _ string) (workload.Result, error) {
	_, err := conn.ExecContext(ctx, "SET @walab_marked = 1")
	return workload.Result{Other: 1}, err
}

// pooledMarked counts the pool's idle connections that carry the marker.
func pooledMarked(t *testing.T, db *sql.DB) (idle, marked int) {
	t.Helper()
	ctx := context.Background()
	var conns []*sql.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range db.Stats().Idle {
		c, err := db.Conn(ctx)
		require.NoError(t, err)
		conns = append(conns, c)
		var v sql.NullInt64
		require.NoError(t, c.QueryRowContext(ctx, "SELECT @walab_marked").Scan(&v))
		if v.Valid {
			marked++
		}
	}
	return len(conns), marked
}

// TestTerminalCloseErrorDiscardsConn: a terminal whose Close fails has its
// connection dropped, not pooled; one that closes cleanly gives it back.
func TestTerminalCloseErrorDiscardsConn(t *testing.T) {
	for _, tc := range []struct {
		name       string
		closeErr   error
		wantMarked bool
	}{
		{"close fails", errors.New("session not restored"), false},
		{"close succeeds", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, _ := testenv.MariaDB(t, "walab_test_runner_close")
			_, err := Run(context.Background(), Config{Target: "t", SQL: &marker{closeErr: tc.closeErr}, DB: db, Threads: 1, Events: 3,
				Metrics: NewMetrics(prometheus.NewRegistry()), RunID: "x", Scenario: "test"})
			require.NoError(t, err)
			idle, marked := pooledMarked(t, db)
			t.Logf("idle %d, marked %d", idle, marked)
			if tc.wantMarked {
				require.Equal(t, 1, marked, "the terminal's connection went back to the pool")
			} else {
				require.Zero(t, marked, "the terminal's connection was discarded")
			}
		})
	}
}
