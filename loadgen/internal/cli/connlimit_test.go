package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

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
