package lab

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/collector"
	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/hostfacts"
	"github.com/walab/walab/internal/safefile"
	"github.com/walab/walab/internal/testenv"
)

// testOptions are Run's options with services that cannot start
// (/bin/false): the tests below are about what Run does before it starts
// them. port is MariaDB's port, dbs its databases.
func testOptions(t *testing.T, port int, db1, db2 string) Options {
	return Options{
		Plan: "../../deploy/experiments/seed000-sim.yml", Out: filepath.Join(t.TempDir(), "lab"),
		Exporter: "/bin/false", Loadgen: "/bin/false", Prometheus: "/bin/false",
		ExporterAddr: freeAddr(t), PrometheusAddr: freeAddr(t), LoadgenAddr: freeAddr(t),
		MySQLPort1: port, MySQLPort2: port, DB1: db1, DB2: db2,
		RunFor: time.Minute, Round: 10 * time.Second, Progress: time.Minute, Stdout: &testenv.Buffer{},
	}
}

// mariaDBPort is the port of the machine's MariaDB (the lab dials
// 127.0.0.1 only).
func mariaDBPort(t *testing.T) int {
	_, p, err := net.SplitHostPort(testenv.MariaDBAddr())
	require.NoError(t, err)
	n, err := strconv.Atoi(p)
	require.NoError(t, err)
	return n
}

// TestRunRefusesPlanNotAFile: --plan=/dev/zero read 22 GB and was
// OOM-killed; a FIFO would block. The plan is read with the experiment's
// bounded reader before anything starts or connects.
func TestRunRefusesPlanNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	big := filepath.Join(dir, "big.yml")
	require.NoError(t, os.WriteFile(big, nil, 0o644))
	require.NoError(t, os.Truncate(big, 64<<20)) // sparse: 64 MiB of zeros
	for plan, want := range map[string]error{"/dev/zero": safefile.ErrNotRegular, fifo: safefile.ErrNotRegular, big: safefile.ErrTooLarge} {
		o := testOptions(t, 1, "a", "b") // port 1: nothing to dial
		o.Plan = plan
		_, err := Run(context.Background(), o)
		require.ErrorIs(t, err, want, plan)
		require.ErrorAs(t, err, new(*UsageError), plan)
		require.Contains(t, err.Error(), plan)
		require.NoDirExists(t, filepath.Join(o.Out, "log"), "nothing started")
	}
}

// TestRunRefusesLockedDatabase: two labs on the same databases restored
// them under each other. The lab holds a MariaDB lock per database for its
// life (GET_LOCK('walab_lab:<db>'), visible to others with IS_USED_LOCK);
// a database another lab holds is refused before anything starts.
func TestRunRefusesLockedDatabase(t *testing.T) {
	db, _ := testenv.MariaDB(t, "h_lab_locked_1")
	_, _ = testenv.MariaDB(t, "h_lab_locked_2")
	conn, err := db.Conn(context.Background())
	require.NoError(t, err)
	defer conn.Close()
	var got int
	require.NoError(t, conn.QueryRowContext(context.Background(), "SELECT GET_LOCK('walab_lab:h_lab_locked_2', 0)").Scan(&got))
	require.Equal(t, 1, got)

	o := testOptions(t, mariaDBPort(t), "h_lab_locked_1", "h_lab_locked_2")
	_, err = Run(context.Background(), o)
	require.Error(t, err)
	require.Contains(t, err.Error(), "h_lab_locked_2")
	require.Contains(t, err.Error(), "in use by another walab lab")
	require.NoDirExists(t, filepath.Join(o.Out, "log"), "nothing started")

	// Once the other lab is gone, the lock is the lab's for its life
	// (released when Run returns).
	_, err = conn.ExecContext(context.Background(), "DO RELEASE_LOCK('walab_lab:h_lab_locked_2')")
	require.NoError(t, err)
	o = testOptions(t, mariaDBPort(t), "h_lab_locked_1", "h_lab_locked_2")
	o.Exporter = "/bin/sh" // the lab's flags make it exit at once
	_, err = Run(context.Background(), o)
	require.ErrorContains(t, err, "exporter exited")
	var free sql.NullInt64
	require.NoError(t, conn.QueryRowContext(context.Background(), "SELECT IS_FREE_LOCK('walab_lab:h_lab_locked_1')").Scan(&free))
	require.Equal(t, int64(1), free.Int64, "released when the lab ends")
}

// TestRunReloadsDirtyDatabase: a restore killed half-way left a database
// the next lab backed up and used (56,468 of 299,609 order lines), and
// said VALID. The plan's restore marks the database dirty before it and
// clean after (table walab_restore_incomplete); a lab that finds the mark
// drops the database, so that the plan's prepare loads it again.
func TestRunReloadsDirtyDatabase(t *testing.T) {
	db1, _ := testenv.MariaDB(t, "h_lab_dirty_1")
	db2, _ := testenv.MariaDB(t, "h_lab_dirty_2")
	for _, q := range []string{"CREATE TABLE bmsql_config (cfg_name VARCHAR(30), cfg_value VARCHAR(50))",
		"INSERT INTO bmsql_config VALUES ('warehouses', '1')"} {
		_, err := db1.Exec(q)
		require.NoError(t, err)
		_, err = db2.Exec(q)
		require.NoError(t, err)
	}
	_, err := db2.Exec("CREATE TABLE " + DirtyTable + " (since TIMESTAMP)")
	require.NoError(t, err)

	o := testOptions(t, mariaDBPort(t), "h_lab_dirty_1", "h_lab_dirty_2")
	_, err = Run(context.Background(), o)
	require.ErrorContains(t, err, "exporter exited") // after the databases were seen to
	require.Contains(t, o.Stdout.(*testenv.Buffer).String(), "h_lab_dirty_2 on 127.0.0.1:")
	var n int
	require.NoError(t, db1.QueryRow("SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = 'h_lab_dirty_2'").Scan(&n))
	require.Equal(t, 0, n, "the dirty database is dropped, not used")
	require.NoError(t, db1.QueryRow("SELECT COUNT(*) FROM bmsql_config").Scan(&n))
	require.Equal(t, 1, n, "a clean database is kept")
}

// TestRunWatchesTheDatadir: the exporter watched / and failed on a host
// with more than 64 mounts (Docker, snap); it now watches MariaDB's
// @@datadir.
func TestRunWatchesTheDatadir(t *testing.T) {
	db, _ := testenv.MariaDB(t, "h_lab_datadir_1")
	_, _ = testenv.MariaDB(t, "h_lab_datadir_2")
	var datadir string
	require.NoError(t, db.QueryRow("SELECT @@datadir").Scan(&datadir))
	o := testOptions(t, mariaDBPort(t), "h_lab_datadir_1", "h_lab_datadir_2")
	_, err := Run(context.Background(), o)
	require.ErrorContains(t, err, "exporter exited")
	cfg, err := os.ReadFile(filepath.Join(o.Out, "exporter.yml"))
	require.NoError(t, err)
	require.Contains(t, string(cfg), "data_dirs: ["+strconv.Quote(filepath.Clean(datadir))+"]")
	require.NotContains(t, string(cfg), "data_dirs: [/]")

	// What the exporter makes of that configuration on a host with 100
	// mounts more than this one (snaps): the data directory's filesystem,
	// and no list cut at its bound.
	mi, err := os.ReadFile("/proc/self/mountinfo")
	require.NoError(t, err)
	var b strings.Builder
	b.Write(mi)
	for i := range 100 {
		fmt.Fprintf(&b, "%d 1 7:%d / /snap/core/%d ro,nodev,relatime shared:%d - squashfs /dev/loop%d ro\n", 9000+i, i, i, 500+i, i)
	}
	proc := filepath.Join(t.TempDir(), "proc")
	require.NoError(t, os.MkdirAll(filepath.Join(proc, "self"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(proc, "self", "mountinfo"), []byte(b.String()), 0o644))
	file, err := config.Parse(cfg)
	require.NoError(t, err)
	ho, err := collector.HostFactsOptions(file, collector.Paths{ProcFS: proc})
	require.NoError(t, err)
	facts := hostfacts.Read(context.Background(), ho)
	require.Empty(t, facts.Truncated)
	require.NotEmpty(t, facts.Mounts)
	require.Equal(t, filepath.Clean(datadir), facts.Mounts[0].DataDir)
}
