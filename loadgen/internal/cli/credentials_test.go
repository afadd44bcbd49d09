package cli

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// TestCredentialSources: the password comes from the command line, else
// --mysql-password-file, else the option file's [client] group, else
// MYSQL_PWD; the option file's user, host and port apply where the command
// line gives none. A FIFO as password file is refused without blocking.
func TestCredentialSources(t *testing.T) {
	dir := t.TempDir()
	pwFile := filepath.Join(dir, "pw")
	require.NoError(t, os.WriteFile(pwFile, []byte("from-file\nsecond line\n"), 0o600))
	cnf := filepath.Join(dir, "my.cnf")
	require.NoError(t, os.WriteFile(cnf, []byte("[client]\nuser=cnfuser\npassword=\"from-cnf # not a comment\"\nhost=10.0.0.9\nport=3310\n"), 0o600))
	t.Setenv("MYSQL_PWD", "from-env")
	conn := func(line string) (user, pw, host string, port int, err error) {
		f, _, _, err := parse(strings.Fields(line), io.Discard)
		require.NoError(t, err)
		err = f.compat.apply(f, io.Discard)
		return f.conn.User, f.conn.Password, f.conn.Host, f.conn.Port, err
	}
	for _, tc := range []struct {
		line, user, pw, host string
		port                 int
	}{
		{"oltp_read_write run", "sbtest", "from-env", "localhost", 3306},
		{"oltp_read_write run --mysql-password-file=" + pwFile, "sbtest", "from-file", "localhost", 3306},
		{"oltp_read_write run --defaults-extra-file=" + cnf, "cnfuser", "from-cnf # not a comment", "10.0.0.9", 3310},
		{"oltp_read_write run --defaults-extra-file=" + cnf + " --mysql-password-file=" + pwFile + " --mysql-user=u --mysql-port=3999", "u", "from-file", "10.0.0.9", 3999},
		{"oltp_read_write run --defaults-extra-file=" + cnf + " --mysql-password=flag --mysql-host=127.0.0.1", "cnfuser", "flag", "127.0.0.1", 3310},
	} {
		user, pw, host, port, err := conn(tc.line)
		require.NoError(t, err, tc.line)
		require.Equal(t, []any{tc.user, tc.pw, tc.host, tc.port}, []any{user, pw, host, port}, tc.line)
	}

	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	_, _, _, _, err := conn("oltp_read_write run --mysql-password-file=" + fifo)
	require.ErrorContains(t, err, "--mysql-password-file: "+fifo+": not a regular file")
	_, _, _, _, err = conn("oltp_read_write run --mysql-password-file=" + filepath.Join(dir, "none"))
	require.ErrorContains(t, err, "--mysql-password-file: stat ")
	_, _, _, _, err = conn("oltp_read_write run --defaults-extra-file=" + pwFile)
	require.ErrorContains(t, err, "--defaults-extra-file: ")
}

// TestPasswordFromOptionFileConnects: a user with a password runs the
// OLTP workload against the machine's MariaDB with the password only in an
// option file; nothing on the command line carries it.
func TestPasswordFromOptionFileConnects(t *testing.T) {
	db, _ := testenv.MariaDB(t, "walab_test_oltp_cli_pw")
	const user, pw = "walab_pw_test", "s3cr=t#x"
	for _, q := range []string{
		"DROP USER IF EXISTS '" + user + "'@'%'",
		"CREATE USER '" + user + "'@'%' IDENTIFIED BY '" + pw + "'",
		"GRANT ALL ON walab_test_oltp_cli_pw.* TO '" + user + "'@'%'",
	} {
		_, err := db.Exec(q)
		require.NoError(t, err, q)
	}
	t.Cleanup(func() { _, _ = db.Exec("DROP USER IF EXISTS '" + user + "'@'%'") })
	host, port, _ := strings.Cut(testenv.MariaDBAddr(), ":")
	cnf := filepath.Join(t.TempDir(), "client.cnf")
	require.NoError(t, os.WriteFile(cnf, []byte("[client]\nuser="+user+"\npassword=\""+pw+"\"\nhost="+host+"\nport="+port+"\n"), 0o600))
	bin := buildLoadgen(t)
	for _, phase := range []string{"prepare", "run"} {
		args := []string{"oltp_point_select", phase, "--defaults-extra-file=" + cnf, "--mysql-db=walab_test_oltp_cli_pw", "--tables=1", "--table-size=100", "--threads=1"}
		if phase == "run" {
			args = append(args, "--events=20", "--web.disable")
		}
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "MYSQL_PWD=") // not from the environment
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", phase, out)
		require.NotContains(t, string(out), pw)
		if phase == "run" {
			require.Contains(t, string(out), "transactions:                        20 ")
		}
	}
	var n int
	require.NoError(t, db.QueryRow("SELECT COUNT(*) FROM walab_test_oltp_cli_pw.sbtest1").Scan(&n))
	require.Equal(t, 100, n)
}
