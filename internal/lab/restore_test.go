package lab

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment"
	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/testenv"
)

// TestPlanRestoreMarksDirty runs seed000-sim.yml's restore steps as the
// plan writes them: a restore that stops half-way (here a backup whose
// second statement fails; Ctrl-C and kill -9 stop it the same way) leaves
// DirtyTable behind, and the lab drops that database; a whole restore
// leaves none.
func TestPlanRestoreMarksDirty(t *testing.T) {
	testenv.RequireBinary(t, "mariadb")
	db1, _ := testenv.MariaDB(t, "h_lab_restore_1")
	_, _ = testenv.MariaDB(t, "h_lab_restore_2")
	port := mariaDBPort(t)
	o := testOptions(t, port, "h_lab_restore_1", "h_lab_restore_2")
	src, err := o.readPlan(hostFor(o).databases())
	require.NoError(t, err)
	p, err := plan.Load(src, experiment.Kinds())
	require.NoError(t, err)
	// The restores, by name (the reset also drops the page cache).
	var restores []string
	for _, st := range p.Reset {
		if st.Name == "restore-1" || st.Name == "restore-2" {
			restores = append(restores, st.Command)
		}
	}
	require.Len(t, restores, 2)

	backup := filepath.Join(o.Out, "backup", "data.sql")
	require.NoError(t, os.MkdirAll(filepath.Dir(backup), 0o755))
	run := func(i int, dump string) error {
		require.NoError(t, os.WriteFile(backup, []byte(dump), 0o644))
		return exec.Command("sh", "-c", restores[i]).Run()
	}
	require.NoError(t, run(0, "CREATE TABLE bmsql_item (i INT);\nINSERT INTO bmsql_item VALUES (1);\n"))
	require.Error(t, run(1, "CREATE TABLE bmsql_item (i INT);\nINSERT INTO bmsql_no_such_table VALUES (1);\n"))

	count := func(q string, args ...any) int {
		var n int
		require.NoError(t, db1.QueryRow(q, args...).Scan(&n))
		return n
	}
	marker := "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = '" + DirtyTable + "'"
	require.Equal(t, 0, count(marker, "h_lab_restore_1"), "a whole restore is clean")
	require.Equal(t, 1, count(marker, "h_lab_restore_2"), "a restore cut short is dirty")
	require.Equal(t, 1, count("SELECT COUNT(*) FROM h_lab_restore_1.bmsql_item"))

	s := &session{servers: map[int]*sql.DB{}}
	defer s.close()
	require.NoError(t, s.cleanDirty(context.Background(), hostFor(o).databases(), o.printf))
	require.Equal(t, 0, count("SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = ?", "h_lab_restore_2"))
	require.Equal(t, 1, count("SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = ?", "h_lab_restore_1"))
}
