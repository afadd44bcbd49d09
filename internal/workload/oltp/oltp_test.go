package oltp_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/walab/walab/internal/runner"
	"github.com/walab/walab/internal/testenv"
	"github.com/walab/walab/internal/workload"
	"github.com/walab/walab/internal/workload/oltp"
)

// TestScripts runs prepare -> run (a fixed number of events) -> check ->
// cleanup for every script on the real MariaDB.
func TestScripts(t *testing.T) {
	db, _ := testenv.MariaDB(t, "walab_test_oltp_scripts")
	ctx := context.Background()
	for _, script := range oltp.Scripts {
		t.Run(script, func(t *testing.T) {
			opt := oltp.DefaultOptions(script)
			opt.Tables, opt.TableSize = 2, 500
			w, err := oltp.New(script, opt)
			require.NoError(t, err)
			require.NoError(t, w.Cleanup(ctx, db))
			var last workload.ProgressEvent
			require.NoError(t, w.Prepare(ctx, db, workload.PrepareOptions{Workers: 2, Progress: func(e workload.ProgressEvent) { last = e }}))
			require.Equal(t, workload.ProgressEvent{Rows: 1000, TotalRows: 1000}, last)

			res, err := runner.Run(ctx, runner.Config{SQL: w, DB: db, Threads: 3, Events: 60, Seed: 1, DrainTimeout: 10 * time.Second})
			require.NoError(t, err)
			require.Equal(t, uint64(60), res.Transactions+res.Errors, "every claimed event counted once")
			require.Zero(t, res.Errors)
			perTxn := map[string][3]uint64{ // reads, writes, other per event with defaults
				"oltp_read_write": {14, 4, 2}, "oltp_read_only": {14, 0, 2}, "oltp_write_only": {0, 4, 2},
				"oltp_point_select": {1, 0, 0}, "oltp_update_index": {0, 1, 0}, "oltp_update_non_index": {0, 1, 0},
				"oltp_insert": {0, 1, 0}, "oltp_delete": {0, 1, 0},
			}[script]
			if res.Retried == 0 { // a deadlock retry adds statements
				require.Equal(t, [3]uint64{perTxn[0] * 60, perTxn[1] * 60, perTxn[2] * 60}, [3]uint64{res.Reads, res.Writes, res.Other})
			}

			checks, err := w.Check(ctx, db)
			require.NoError(t, err)
			require.Len(t, checks, 6)
			for _, c := range checks {
				require.True(t, c.Passed, "%s: %s", c.Name, c.Detail)
			}
			require.NoError(t, w.Cleanup(ctx, db))
		})
	}
}

// TestPrepareResumes interrupts nothing but simulates a half-loaded table
// by deleting its tail, and a broken one by deleting from the middle.
func TestPrepareResumes(t *testing.T) {
	db, _ := testenv.MariaDB(t, "walab_test_oltp_resume")
	ctx := context.Background()
	opt := oltp.DefaultOptions("oltp_read_write")
	opt.Tables, opt.TableSize = 2, 3000
	w, err := oltp.New("oltp_read_write", opt)
	require.NoError(t, err)
	require.NoError(t, w.Prepare(ctx, db, workload.PrepareOptions{Workers: 2}))

	// Tail missing and no k index: as if the loader died mid-table.
	_, err = db.Exec("DELETE FROM sbtest2 WHERE id > 1234")
	require.NoError(t, err)
	_, err = db.Exec("DROP INDEX k_2 ON sbtest2")
	require.NoError(t, err)
	var events []workload.ProgressEvent
	require.NoError(t, w.Prepare(ctx, db, workload.PrepareOptions{Workers: 1, Progress: func(e workload.ProgressEvent) { events = append(events, e) }}))
	require.Equal(t, int64(6000), events[len(events)-1].Rows)
	checks, err := w.Check(ctx, db)
	require.NoError(t, err)
	for _, c := range checks {
		require.True(t, c.Passed, "%s: %s", c.Name, c.Detail)
	}

	// A hole in the middle is not a resumable state: refuse clearly.
	_, err = db.Exec("DELETE FROM sbtest1 WHERE id = 10")
	require.NoError(t, err)
	err = w.Prepare(ctx, db, workload.PrepareOptions{Workers: 2})
	require.ErrorContains(t, err, "sbtest1: half-loaded table does not match --table-size 3000 (2999 rows, max id 3000): run cleanup")
	checks, err = w.Check(ctx, db)
	require.NoError(t, err)
	require.False(t, checks[0].Passed)
}

func openDB(t *testing.T, addr, db string) (*sql.DB, string) {
	t.Helper()
	dsn := testenv.DSN(addr, db)
	d, err := sql.Open("mysql", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { d.Close() })
	return d, dsn
}
