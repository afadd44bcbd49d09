package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// TestTerminalsThatNeverConnect: 12 terminals against a server that takes
// 4 connections (5 for root, who has SUPER): the summary names how many
// never connected and why, and the run exits 1 instead of reporting the
// load of 12 threads.
func TestTerminalsThatNeverConnect(t *testing.T) {
	in := testenv.StartMariaDB(t, "--max-connections=4")
	host, port, _ := strings.Cut(in.Addr, ":")
	conn := []string{"--mysql-host", host, "--mysql-port", port, "--mysql-user", "root", "--mysql-db", "walab_connlimit", "--web.disable"}
	var out, errb bytes.Buffer
	code := Main(append([]string{"oltp_point_select", "prepare", "--tables", "1", "--table-size", "100"}, conn...), &out, &errb)
	require.Equal(t, 0, code, "%s", errb.String())
	out.Reset()
	errb.Reset()
	code = Main(append([]string{"oltp_point_select", "run", "--tables", "1", "--table-size", "100", "--threads", "12", "--time", "3"}, conn...), &out, &errb)
	require.Equal(t, 1, code, "stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	require.Contains(t, errb.String(), "terminals never connected: the run did not offer the load asked for")
	require.Regexp(t, `warning: \d+ of 12 terminals never connected, so the run had \d+: \d+: .*Too many connections`, out.String())
	fmt.Fprintln(&out)
	t.Log(out.String())
}

// TestReadOnlyServerBacksOff: a server that refuses the run's statements
// for two seconds in the middle of a write-only run (its table renamed
// away and back: every statement fails at once, as on a read-only server,
// and no global lock has to wait for the terminals). Without a
// backoff every terminal retried in a hot loop (38,818 errors against
// 24,003 commits once); now a terminal whose transaction failed waits
// 100 ms, doubling to 5 s, before the next, so the two seconds cost a few
// dozen errors, and the run commits again once writes are allowed.
func TestReadOnlyServerBacksOff(t *testing.T) {
	in := testenv.StartMariaDB(t)
	db, _ := in.Open("walab_readonly")
	defer db.Close()
	for _, q := range []string{
		"CREATE USER 'lg'@'127.0.0.1' IDENTIFIED BY 'lg'",
		"GRANT ALL ON walab_readonly.* TO 'lg'@'127.0.0.1'",
	} {
		_, err := db.Exec(q)
		require.NoError(t, err, q)
	}
	host, port, _ := strings.Cut(in.Addr, ":")
	conn := []string{"--mysql-host", host, "--mysql-port", port, "--mysql-user", "lg", "--mysql-password", "lg",
		"--mysql-db", "walab_readonly", "--web.disable", "--tables", "1", "--table-size", "1000"}
	var out, errb bytes.Buffer
	require.Equal(t, 0, Main(append([]string{"oltp_write_only", "prepare"}, conn...), &out, &errb), errb.String())
	go func() {
		time.Sleep(1500 * time.Millisecond)
		_, _ = db.Exec("RENAME TABLE walab_readonly.sbtest1 TO walab_readonly.sbtest1_away")
		time.Sleep(2 * time.Second)
		_, _ = db.Exec("RENAME TABLE walab_readonly.sbtest1_away TO walab_readonly.sbtest1")
	}()
	resultPath := filepath.Join(t.TempDir(), "r.json")
	out.Reset()
	errb.Reset()
	code := Main(append([]string{"oltp_write_only", "run", "--threads", "4", "--time", "7", "--result-json", resultPath}, conn...), &out, &errb)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	b, err := os.ReadFile(resultPath)
	require.NoError(t, err)
	var res struct {
		Results []struct {
			Transactions, Errors uint64
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal(b, &res))
	require.Len(t, res.Results, 1)
	r := res.Results[0]
	t.Logf("%d committed, %d failed while the table was away", r.Transactions, r.Errors)
	require.NotZero(t, r.Errors, "the window was hit")
	require.Less(t, r.Errors, uint64(100), "backoff, not a hot loop")
	require.Greater(t, r.Transactions, 10*r.Errors)
}
