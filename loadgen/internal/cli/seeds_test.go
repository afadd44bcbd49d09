package cli

import (
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSeedCommandLines: every sysbench command line of the seeds (002 and
// 004; 001 prints none), verbatim with loadgen in place of sysbench and
// the seeds' XXX placeholders filled in, goes through loadgen's parser to
// the workload and phase sysbench would run — or is refused with the
// reason where loadgen does not do what the line asks.
func TestSeedCommandLines(t *testing.T) {
	fill := strings.NewReplacer("XXXX", "127.0.0.1", "XXX", "16")
	for _, tc := range []struct {
		seed, line   string
		wl, phase    string
		wantErr      string
		checkOptions func(t *testing.T, f *flags, c *command)
	}{
		{seed: "004", line: "--test=fileio --file-num=4 --file-block-size=16384 --file-total-size=4G prepare", wl: "fileio", phase: "prepare"},
		{seed: "004", line: "--test=fileio --file-num=4 --file-block-size=16384 --file-total-size=4G --file-test-mode=rndrd --file-extra-flags=direct --max-time=300 --max-requests=0 --file-fsync-freq=1 --num-threads=128 --report-interval=1 run", wl: "fileio", phase: "run",
			checkOptions: func(t *testing.T, f *flags, _ *command) {
				require.Equal(t, 128, f.run.threads)
				require.Equal(t, 300, f.run.timeSec)
				require.Equal(t, 1, f.run.reportInterval)
			}},
		{seed: "004", line: "--test=fileio --file-num=4 --file-block-size=16384 --file-total-size=4G cleanup", wl: "fileio", phase: "cleanup"},
		{seed: "002", line: "fileio --time=300 --events=0 --threads=XXX --file-num=127 --file-total-size=148G --file-io-mode=sync --file-test-mode=rndwr --file-block-size=16384 run", wl: "fileio", phase: "run"},
		{seed: "002", line: "--threads=128 --time=1800 --rand-type=uniform --report-interval=5 --db-driver=mysql --mysql-host=XXXX --mysql-user=XXXX --mysql-password=XXXX --tables=100 --table_size=20000000 oltp_read_only prepare", wl: "oltp_read_only", phase: "prepare"},
		{seed: "002", line: "--threads=128 --time=1800 --rand-type=uniform --report-interval=5 --db-driver=mysql --mysql-host=XXXX --mysql-user=XXXX --mysql-password=XXXX --tables=100 --table_size=20000000 oltp_read_write run", wl: "oltp_read_write", phase: "run",
			checkOptions: func(t *testing.T, f *flags, _ *command) {
				require.Equal(t, "127.0.0.1", f.conn.Host)
				require.Equal(t, 1800, f.run.timeSec)
			}},
		{seed: "002", line: "tpcc.lua --mysql-host=XXXX --mysql-user=XXXX --mysql-password=XXXX --mysql-port=3306 --mysql-db=sysbench --time=1800 --threads=128 --report-interval=1 --tables=100 --scale=100 --db-driver=mysql prepare", wl: "tpcc", phase: "prepare"},
		{seed: "002", line: "tpcc.lua --mysql-host=XXXX --mysql-user=XXXX --mysql-password=XXXX --mysql-port=3306 --mysql-db=sysbench --time=1800 --threads=128 --report-interval=1 --tables=1 --scale=100 --db-driver=mysql run", wl: "tpcc", phase: "run"},
		// sysbench 0.5's OLTP form, as seed 001's era ran it.
		{seed: "001", line: "--test=/usr/share/sysbench/tests/include/oltp_legacy/oltp.lua --oltp-table-size=20000000 --oltp-tables-count=5 --num-threads=64 --max-time=600 --max-requests=0 run", wl: "oltp_read_write", phase: "run"},
		// Seed 002's environment checks: cpu and memory.
		{seed: "002", line: "cpu --threads=XXX --time=300 --cpu-max-prime=10000 run", wl: "cpu", phase: "run"},
		{seed: "002", line: "--threads=8 --time=60 --test=cpu --cpu-max-prime=1000 run", wl: "cpu", phase: "run"},
		{seed: "002", line: "memory --events=0 --threads=XXX --memory-block-size=1M --memory-total-size=100G --memory-scope=global --memory-oper=read --memory-access-mode=rnd run", wl: "memory", phase: "run",
			checkOptions: func(t *testing.T, f *flags, c *command) {
				cfg := mustBuild(t, f, c).run
				require.Equal(t, int64(100*1024), cfg.Events, "100G in 1M blocks: the run ends there or at --time")
			}},
	} {
		t.Run(tc.seed+" "+tc.line, func(t *testing.T) {
			f, c, phase, err := parse(strings.Fields(fill.Replace(tc.line)), io.Discard)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.NotNil(t, c)
			require.Equal(t, tc.wl, c.spec.Name)
			require.Equal(t, tc.phase, phase)
			require.NoError(t, f.compat.apply(f, io.Discard))
			if tc.checkOptions != nil {
				tc.checkOptions(t, f, c)
			}
		})
	}
}

func TestCompatOptions(t *testing.T) {
	f, _, _, err := parse(strings.Fields("oltp_read_write run --db-driver=pgsql"), io.Discard)
	require.NoError(t, err)
	require.ErrorContains(t, f.compat.apply(f, io.Discard), "--db-driver=pgsql: loadgen drives MySQL and MariaDB only")

	t.Setenv("MYSQL_PWD", "from-env")
	var notes strings.Builder
	f, _, _, err = parse(strings.Fields("oltp_read_write run --histogram --warmup-time=10 --db-ps-mode=disable --mysql-ignore-errors=1213,1020"), io.Discard)
	require.NoError(t, err)
	require.NoError(t, f.compat.apply(f, &notes))
	require.Equal(t, "from-env", f.conn.Password, "MYSQL_PWD, as the mysql client reads it")
	for _, want := range []string{"--histogram accepted, no effect", "--warmup-time=10 accepted, no effect", "--db-ps-mode=disable accepted", "--mysql-ignore-errors=1213,1020 accepted"} {
		require.Contains(t, notes.String(), want)
	}
	f, _, _, err = parse(strings.Fields("oltp_read_write run --mysql-password=flag"), io.Discard)
	require.NoError(t, err)
	require.NoError(t, f.compat.apply(f, io.Discard))
	require.Equal(t, "flag", f.conn.Password, "the flag wins over MYSQL_PWD")
}

// mustBuild builds the command's workload as a run would.
func mustBuild(t *testing.T, f *flags, c *command) *target {
	t.Helper()
	tg := &target{name: "x"}
	require.NoError(t, c.build(f, tg))
	return tg
}
