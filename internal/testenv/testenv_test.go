package testenv

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMachineMariaDB(t *testing.T) {
	db, _ := MariaDB(t, "walab_test_testenv")
	var one int
	require.NoError(t, db.QueryRow("SELECT 1").Scan(&one))
	require.Equal(t, 1, one)
}

func TestSecondInstanceKillRestart(t *testing.T) {
	in := StartMariaDB(t)
	db, _ := in.Open("walab_test_second")
	_, err := db.Exec("CREATE TABLE t (id INT PRIMARY KEY)")
	require.NoError(t, err)
	in.Kill()
	require.Error(t, db.Ping())
	in.Restart()
	db2, _ := in.Open("")
	var n int
	require.NoError(t, db2.QueryRow("SELECT COUNT(*) FROM walab_test_second.t").Scan(&n))
	require.Equal(t, 0, n)
}

// TestDatabaseDroppedAfterTest: a test's database is gone when the test
// ends, so `make test` leaves nothing on the machine's MariaDB.
func TestDatabaseDroppedAfterTest(t *testing.T) {
	const name = "walab_test_testenv_dropped"
	admin, _ := MariaDB(t, "")
	t.Run("uses", func(t *testing.T) {
		db, _ := MariaDB(t, name)
		_, err := db.Exec("CREATE TABLE t (id INT PRIMARY KEY)")
		require.NoError(t, err)
	})
	var n int
	require.NoError(t, admin.QueryRow("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", name).Scan(&n))
	require.Zero(t, n, "database %s left behind", name)
}

// TestShortSkipsServices: with -short a test that needs the machine's
// MariaDB skips, even under CI=true, where without -short a missing
// service fails the test.
func TestShortSkipsServices(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary itself with -test.short")
	}
	cmd := exec.Command(os.Args[0], "-test.short", "-test.v", "-test.run=^TestMachineMariaDB$")
	cmd.Env = append(os.Environ(), "CI=true", "WALAB_TEST_MYSQL_ADDR=127.0.0.1:1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "--- SKIP: TestMachineMariaDB")
	require.Contains(t, string(out), "-short: needs the machine's MariaDB")
}
