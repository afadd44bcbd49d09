package cli

import (
	"bytes"
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// TestServerKilledBeforeFirstCommit: the server holds every write behind
// a global read lock, then dies (kill -9) before any transaction commits:
// the run ends at --time and exits 1 with one line saying nothing was
// measured, instead of a summary of zero TPS and exit 0.
func TestServerKilledBeforeFirstCommit(t *testing.T) {
	in, db, conn := preparedServer(t, "walab_killed")
	var out, errb bytes.Buffer

	lock, err := db.Conn(context.Background())
	require.NoError(t, err)
	_, err = lock.ExecContext(context.Background(), "FLUSH TABLES WITH READ LOCK")
	require.NoError(t, err)
	go func() {
		time.Sleep(1500 * time.Millisecond) // the terminals wait on the lock
		in.Kill()
	}()
	out.Reset()
	errb.Reset()
	code := Main(append([]string{"oltp_write_only", "run", "--threads", "2", "--time", "4"}, conn...), &out, &errb)
	require.Equal(t, 1, code, "stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	require.Contains(t, errb.String(), "target default: no transaction completed in ")
	require.Contains(t, errb.String(), "the run measured nothing")
}

// TestErrorRateAboveTheLimit: the run's table is away for its first
// second (every statement fails, the terminals back off), then back: the
// run commits, but its failed share is above --max-error-rate, so it exits
// 1 with the figures; with the default limit the same run exits 0.
func TestErrorRateAboveTheLimit(t *testing.T) {
	_, db, conn := preparedServer(t, "walab_errrate")
	var out, errb bytes.Buffer
	for _, tc := range []struct {
		limit []string
		code  int
	}{{[]string{"--max-error-rate", "0.0001"}, 1}, {nil, 0}} {
		_, err := db.Exec("RENAME TABLE sbtest1 TO sbtest1_away")
		require.NoError(t, err)
		go func() {
			time.Sleep(time.Second)
			_, _ = db.Exec("RENAME TABLE sbtest1_away TO sbtest1")
		}()
		out.Reset()
		errb.Reset()
		args := append(append([]string{"oltp_write_only", "run", "--threads", "2", "--time", "3"}, conn...), tc.limit...)
		code := Main(args, &out, &errb)
		require.Equal(t, tc.code, code, "stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
		if tc.code == 1 {
			require.Regexp(t, `target default: \d+ of \d+ attempts failed \([0-9.]+%\), more than --max-error-rate 0\.0001 \(0\.01%\)`, errb.String())
		}
		require.Regexp(t, `errors:\s+[1-9]\d* `, out.String(), "the summary says how many failed")
	}
}

// preparedServer starts a private mariadbd with one sbtest table of 100
// rows in database name, and returns it, a connection to that database
// and loadgen's connection flags for it.
func preparedServer(t *testing.T, name string) (*testenv.Instance, *sql.DB, []string) {
	t.Helper()
	in := testenv.StartMariaDB(t)
	db, _ := in.Open(name)
	host, port, _ := strings.Cut(in.Addr, ":")
	conn := []string{"--mysql-host", host, "--mysql-port", port, "--mysql-user", "root", "--mysql-db", name,
		"--web.disable", "--tables", "1", "--table-size", "100"}
	var out, errb bytes.Buffer
	require.Equal(t, 0, Main(append([]string{"oltp_write_only", "prepare"}, conn...), &out, &errb), errb.String())
	return in, db, conn
}

// TestLoginRefused: a server that refuses the login (an unknown database,
// an unknown user) does not change its answer by waiting: a run with no
// time limit ends at once, exits 1 and says why, instead of reconnecting
// forever with its terminals "started".
func TestLoginRefused(t *testing.T) {
	testenv.MariaDB(t, "walab_login_refused_probe") // the server is up (or, under CI, the test fails)
	host, port, _ := strings.Cut(testenv.MariaDBAddr(), ":")
	for _, tc := range []struct {
		user, db, want string
	}{
		{"root", "walab_no_such_db", "Unknown database 'walab_no_such_db'"},
		{"walab_no_such_user", "mysql", "Access denied for user 'walab_no_such_user'"},
	} {
		var out, errb bytes.Buffer
		done := make(chan int, 1)
		go func() {
			done <- Main([]string{"oltp_point_select", "run", "--threads", "3", "--time", "0", "--events", "100",
				"--mysql-host", host, "--mysql-port", port, "--mysql-user", tc.user, "--mysql-db", tc.db,
				"--tables", "1", "--table-size", "100", "--web.disable"}, &out, &errb)
		}()
		select {
		case code := <-done:
			require.Equal(t, 1, code, "stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
		case <-time.After(60 * time.Second):
			t.Fatalf("%s@%s: the run did not end; stdout:\n%s", tc.user, tc.db, out.String())
		}
		require.Contains(t, out.String(), "3 of 3 terminals never connected")
		require.Contains(t, out.String(), tc.want)
		require.Contains(t, errb.String(), "no transaction completed")
	}
}
