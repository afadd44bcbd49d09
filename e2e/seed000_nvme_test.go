//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/fingerprint"
	"github.com/walab/walab/internal/testenv"
	"github.com/walab/walab/test/qemu"
)

// seed000NVMeEnv is the rehearsal's set-up of deploy/experiments/seed000-nvme.yml:
// the plan file unchanged, these variables for a guest with 2 vCPUs, one
// NUMA node, MariaDB from this machine's /usr, xfs on the FDP drive's two
// 1 GiB namespaces, TPC-C with 1 warehouse and runs of a minute.
func seed000NVMeEnv(h *qemu.DBHostGuest, promAddr, loadgen, loadgenListen string) []string {
	mysqld := func(n string) string {
		return "--no-defaults --user=root --bind-address=0.0.0.0 --skip-name-resolve --innodb-buffer-pool-size=256M " +
			"--innodb-log-file-size=" + rehearsalLogSize + " --max-connections=50 --tmpdir=/data/mysql-" + n + "/tmp " +
			// An emulated CPU on a shared box loads 1 warehouse at ~800 rows/s
			// with a flush per commit; durability is not what this rehearses.
			"--innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0 " +
			// Reads through the guest's page cache, which the restore just
			// filled: O_DIRECT reads of the cold datadir crawled at about
			// 1 MB/s under TCG at load 36, and tpcc check's scans ran into
			// loadgen's 60 s read timeout.
			"--innodb-flush-method=fsync"
	}
	return []string{
		"WALAB_DB_HOST=127.0.0.1", "WALAB_DB_EXEC=" + h.SSH(), "WALAB_EXPORTER=" + h.ExporterURL(),
		"WALAB_PROMETHEUS=http://" + promAddr, "WALAB_DEVICE=nvme0", "WALAB_LOADGEN=" + loadgen,
		"WALAB_MYSQL_1_PORT=" + strconv.Itoa(h.MySQL1), "WALAB_MYSQL_2_PORT=" + strconv.Itoa(h.MySQL2),
		"WALAB_NS1=/dev/nvme0n1", "WALAB_NS2=/dev/nvme0n2", "WALAB_MKFS=mkfs.xfs -f -q", "WALAB_BACKUP=/bak",
		"WALAB_INIT_DB=mariadb-install-db --no-defaults --user=root --auth-root-authentication-method=normal --skip-test-db",
		"WALAB_MYSQLD=mariadbd", "WALAB_MYSQLD_1_ARGS=" + mysqld("1"), "WALAB_MYSQLD_2_ARGS=" + mysqld("2"), "WALAB_CLIENT=mariadb",
		"WALAB_MYSQL_1_CPUS=0", "WALAB_MYSQL_2_CPUS=1", "WALAB_MEM_NODES=0", "WALAB_NIC=eth0", "WALAB_NIC_CPUS=0-1",
		"WALAB_TUNING_ON_FAIL=warn", "WALAB_FILL_MIN=0.05", "WALAB_FILL_MAX=0.9",
		"WALAB_WAREHOUSES=1", "WALAB_LOAD_THREADS=4", "WALAB_TERMINALS=2", "WALAB_RUN=60s", "WALAB_ROUND=20s",
		"WALAB_LOADGEN_LISTEN=" + loadgenListen, "WALAB_REUSE_BACKUP=yes",
		// The backup passed tpcc check natively (nativeBackup); in the guest
		// the check's whole-table joins outlast loadgen's 60 s read timeout
		// under TCG on a loaded box (3.3.2.10 did at load 40), so the
		// prepare step runs 20 TPC-C transactions on the restored server.
		"WALAB_LOAD_PHASE=run --time 300 --events 20 --web.listen-address=127.0.0.1:0",
		// QEMU logs an FDP event naming the namespace and handle each time
		// a namespace's writes fill a reclaim unit: the observation holds.
		"WALAB_PLACEMENT_OBSERVED_ON_FAIL=stop",
	}
}

// nativeBackup is seed 000 §3.3-3.4's backup made on this machine: the
// emulated CPU loads TPC-C at 150-800 rows/s under the shared box's load,
// an hour for 1 warehouse, where this machine's own mariadbd (the same
// binary the guest runs from the shared /usr) takes seconds, and tpcc check
// (clause 3.3.2) passes on it here. The plan then reuses it
// (WALAB_REUSE_BACKUP=yes). The
// backup reaches the guest as an ext4 image on a virtio disk
// (qemu.BackupImage): six restores read it, and over 9p each took minutes.
func nativeBackup(t *testing.T, dir, loadgen string) string {
	t.Helper()
	// The guest's servers run with this redo log size, so the restored
	// datadir is used as it is, not rewritten at the first start.
	in := testenv.StartMariaDB(t, "--innodb-log-file-size="+rehearsalLogSize)
	db, _ := in.Open("tpcc")
	// Seed 000 §2.4 lets root in from the client (host '%'): the backup
	// carries the grant, so the restored instances take loadgen's and
	// walab's connections, which QEMU's user network delivers from 10.0.2.2.
	// And the exporter's own user for InnoDB and the settings, as
	// docs/innodb.md has an operator make it.
	for _, q := range append([]string{"CREATE USER IF NOT EXISTS 'root'@'%'", "GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION"}, qemu.DBHostMySQLGrants...) {
		_, err := db.Exec(q)
		require.NoError(t, err)
	}
	db.Close()
	for _, phase := range []string{"prepare", "check"} {
		out, err := exec.Command(loadgen, "tpcc", phase, "--warehouses", "1", "--threads", "4",
			"--target", "mysql-1=root@tcp("+in.Addr+")/tpcc").CombinedOutput()
		require.NoError(t, err, "tpcc %s: %s", phase, out)
	}
	in.Stop()
	img := filepath.Join(dir, "bak.img")
	qemu.BackupImage(t, in.DataDir, img)
	return img
}

// rehearsalLogSize is the InnoDB redo log of the backup and of the
// guest's servers: the smallest that keeps a 60 s TPC-C run from waiting
// on checkpoints, 32 MiB less to restore than the default's 48.
const rehearsalLogSize = "16M"

// TestSeed000NVMeQEMU rehearses seed 000 on a real kernel's NVMe stack: the
// database host is a QEMU guest (Debian's 6.12 kernel, the stock nvme
// driver, QEMU's FDP drive with two namespaces on their own reclaim unit
// handles, this machine's mariadbd twice, systemd as init and the
// walab-exporter .deb of make dist installed with dpkg and started with
// systemctl, as an operator does, reading the controller through the
// ioctl path under the unit's user and sandbox), the client is this machine (walab
// experiment, loadgen, Prometheus), reaching it only through loopback ports
// QEMU forwards, and the db steps run over ssh with a key made for the run.
// deploy/experiments/seed000-nvme.yml runs unchanged but for its variables,
// and no check of its report is left unknown.
func TestSeed000NVMeQEMU(t *testing.T) {
	dir, bins := preamble(t, []string{"prometheus"}, "loadgen", "walab")
	promBin := bins["prometheus"]
	bak := nativeBackup(t, dir, bins["loadgen"])
	h := qemu.StartDBHostSystemd(t, qemu.ExporterDeb(t, "..", dir), bak)

	writeE2ERules(t, dir)
	loadgenListen := addr(testenv.FreePort(t))
	// Every 5 s: the guest's exporter answers a scrape in seconds under
	// TCG on a loaded box (1 s scrapes timed out and took the guest's CPU).
	promAddr, _ := startPrometheusEvery(t, dir, promBin, "5s", [2]string{"walab-exporter", addr(h.ExporterPort)}, [2]string{"walab-loadgen", loadgenListen})

	out := filepath.Join(dir, "experiment")
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bins["walab"], "experiment", "run", "../deploy/experiments/seed000-nvme.yml", "--out", out, "--progress", "20s")
	cmd.Env = append(os.Environ(), seed000NVMeEnv(h, promAddr, bins["loadgen"], loadgenListen)...)
	started := time.Now()
	b, err := cmd.CombinedOutput()
	t.Logf("walab experiment took %s", time.Since(started).Round(time.Second))
	if keep := os.Getenv("WALAB_E2E_KEEP"); keep != "" {
		_ = exec.Command("cp", "-a", out, keep).Run()
	}
	require.NoError(t, err, "%s", b)
	t.Logf("%s", b)

	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	require.NoError(t, err)
	r := string(report)
	// Every check of the comparison decided: the real-drive path has the
	// data for each (drive worn in, same MySQL config among them).
	for _, l := range strings.Split(r, "\n") {
		require.False(t, strings.HasPrefix(strings.TrimSpace(l), "unknown "), "a check left unknown: %s", l)
	}
	for _, re := range []string{
		`\| baseline \| datadir \| PASS \| /data/mysql-1/data/? on ` + qemu.DBHostName + `: nvme0n1 → nvme0 \(serial walabdb01\)`,
		`\| namespaces \| datadir \| PASS \| [^|]*/data2/mysql-2/data/? on ` + qemu.DBHostName + `: nvme0n2 → nvme0 \(serial walabdb01\)`,
		`\| baseline \| discard \| PASS \| /data on ` + qemu.DBHostName + `: reset discarded`,
		`\| namespaces \| discard \| PASS \| /data2 on ` + qemu.DBHostName + `: reset discarded`,
		`\| baseline \| fill \| PASS \| fill [0-9.]+% \(filesystem of /data/mysql-1/data/? on ` + qemu.DBHostName + `\)`,
		`\| namespaces \| same_data \| PASS \| mysql-1, mysql-2: [0-9]+ tables, checksum [0-9a-f]{12}, as at baseline's checks`,
		// Both arms hold two copies on the drive, split differently (no idle copy).
		`\| namespaces \| drive_data \| PASS \| on ` + qemu.DBHostName + `: /data [0-9.]+ MiB, /data2 [0-9.]+ MiB \([0-9.]+ MiB in all\), as baseline held`,
		`\| baseline \| mysqld_cpus \| PASS \| mariadbd pid [0-9]+ on CPUs 0 \(policy interleave:0\)`,
		`\| baseline \| placement \| PASS \| [^|]*FDP enabled=true: on[^|]*no file write reaches an FDP placement handle`,
		`\| baseline \| placement \| PASS \| [^|]*observed: mysql-1 \(/data/mysql-1/data/?\) on nvme0n1 → handle [0-9]+, mysql-2 \(/data/mysql-2/data/?\) on nvme0n1 → handle [0-9]+;[^|]*one handle shared \(scenario baseline\)`,
		`\| namespaces \| placement \| PASS \| [^|]*observed: mysql-1 \(/data/mysql-1/data/?\) on nvme0n1 → handle [0-9]+, mysql-2 \(/data2/mysql-2/data/?\) on nvme0n2 → handle [0-9]+;[^|]*a handle each \(scenario namespaces\)`,
		// Which handle QEMU's events name for a namespace varies from boot
		// to boot; the check's verdict (one shared, a handle each) does not.
	} {
		require.Regexp(t, re, r)
	}
	for _, run := range []string{"seed000-nvme-baseline-r1", "seed000-nvme-namespaces-r1"} {
		var f fingerprint.Fingerprint
		b, err := os.ReadFile(filepath.Join(out, "runs", run, "fingerprint-start.json"))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &f))
		require.Equal(t, qemu.DBHostName, f.Host.Hostname)
		require.Equal(t, "walabdb01", f.Drive.Serial)
		require.Equal(t, "fdp", f.Drive.Source, "the NAND counter from the drive's own FDP statistics page, through the ioctl path")
		require.False(t, f.Drive.Simulated)
		require.NotEmpty(t, f.Treatment.Commands)
		require.Len(t, f.Data, 2)
		require.Equal(t, f.Data["mysql-1"], f.Data["mysql-2"])
		require.NotEmpty(t, f.ResetDiscardedBytes)
		// Per-namespace placement from the drive's own pages: each
		// namespace's SMART log and the FDP events naming its handle.
		require.Contains(t, f.Drive.NamespaceWritten, "nvme0n1")
		require.Contains(t, f.Drive.NamespaceWritten, "nvme0n2")
		// Which handle number QEMU's events give a namespace varies from
		// boot to boot: what holds is one handle for namespace 1, and in
		// the candidate one for namespace 2 that namespace 1 does not use.
		require.Len(t, f.Drive.NamespaceHandles["nvme0n1"], 1, "namespace 1's writes on one reclaim unit handle")
		if run == "seed000-nvme-namespaces-r1" {
			require.Len(t, f.Drive.NamespaceHandles["nvme0n2"], 1, "namespace 2's writes on one reclaim unit handle")
			require.NotEqual(t, f.Drive.NamespaceHandles["nvme0n1"], f.Drive.NamespaceHandles["nvme0n2"], "each namespace on a handle of its own")
		}
	}
	// The verdict says what the drive measured: QEMU's drive does no
	// garbage collection, so both arms' WA is about 1.0 (its FDP model
	// counts the bytes that complete a reclaim unit twice: a few per cent
	// at most), and it claims no difference. Runs of 60 s hold 3 rounds of
	// 20 s, fewer than the 5 of a steady state, so compare finds the
	// comparison NOT VALID and the report gives no reduction.
	wa := regexp.MustCompile(`WA over whole runs \(drive counters at start and end\): ([0-9.]+) → ([0-9.]+); no reduction is given: walab compare did not find the comparison VALID`).FindStringSubmatch(r)
	require.NotNil(t, wa, "the report's WA over whole runs, without a reduction")
	for _, v := range wa[1:] {
		f, err := strconv.ParseFloat(v, 64)
		require.NoError(t, err)
		require.InDelta(t, 1.0, f, 0.05, "WA %s", v)
	}
	require.Regexp(t, "```\nNOT VALID: baseline steady: WA never reached steady state", r)
	// FDP is on in both arms: compare's placement check reads each
	// namespace's own write counter, which shows the candidate's second
	// instance on its namespace and the baseline's on one.
	require.Regexp(t, `pass +placement \(observed\) +[0-9.]+% of the candidate's and 0\.[0-9]% of the baseline's write bytes went outside the busiest namespace`, r)
}
