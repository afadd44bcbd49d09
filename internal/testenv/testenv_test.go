package testenv

import (
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
