package lab

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// With Options.SimFS the lab's drive sits under the exporter's FUSE
// filesystem (sim.fs, docs/sim.md) and the lab runs a private mariadbd
// whose datadir is on it: the drive's WA comes from MariaDB's own writes.

// simfsCapacity holds the private server's system files, the two TPC-C
// warehouses and the binlogs of their load and of both restores (a binlog
// is kept 60 s, and two restores 10 s apart keep both): 768 MiB ran out of
// space in the second restore (ERROR 1114, table full) once restores took
// 10 s, 576 MiB in the prepare. The fill after the load is then about 46 %,
// above the plan's fill check. So roomy a drive barely collects garbage in
// the lab's 90-second runs (WA 1.00 in both, bench/RESULTS-sim.md);
// bench/simfs-wa.sh sizes the drive to the data.
const simfsCapacity = "1GiB"

// simfsDrive is the lab's sim section with the drive under the filesystem
// mounted on out/simfs/mnt over out/simfs/backing (exporterConfig adds
// its state file).
func simfsDrive(out string) string {
	return fmt.Sprintf(`sim:
  name: %s
  capacity: %s
  spare_factor: 0.1
  block_pages: 64
  tick: 0s
  placement:
    streams: true
  fs:
    mountpoint: %s
    backing: %s
`, Device, simfsCapacity, filepath.Join(out, "simfs", "mnt"), filepath.Join(out, "simfs", "backing"))
}

// simfsDataDir is where the private mariadbd keeps its data: on the mount.
func simfsDataDir(out string) string { return filepath.Join(out, "simfs", "mnt", "data") }

// simfsDirs makes the mountpoint and the backing directory.
func simfsDirs(out string) error {
	for _, d := range []string{"mnt", "backing", "mariadb"} {
		if err := os.MkdirAll(filepath.Join(out, "simfs", d), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// freePort is a loopback port nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startMariaDB initialises a datadir on the mounted filesystem and starts
// mariadbd on it, on loopback at port, its socket, log and tmpdir outside
// the mount.
func (o Options) startMariaDB(ctx context.Context, port int) (*proc, error) {
	run := filepath.Join(o.Out, "simfs", "mariadb")
	data := simfsDataDir(o.Out)
	install, err := exec.LookPath("mariadb-install-db")
	if err != nil {
		return nil, fmt.Errorf("--simfs: %w (Debian package mariadb-server)", err)
	}
	out, err := exec.CommandContext(ctx, install, "--no-defaults", "--datadir="+data, "--user=root",
		"--auth-root-authentication-method=normal", "--skip-test-db", "--tmpdir="+run).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("--simfs: mariadb-install-db on %s: %w\n%s", data, err, out)
	}
	p, err := start(o.Out, "mariadbd", o.MariaDBD, "--no-defaults", "--datadir="+data, "--user=root",
		"--bind-address=127.0.0.1", "--port="+strconv.Itoa(port), "--socket="+filepath.Join(run, "mysqld.sock"),
		"--pid-file="+filepath.Join(run, "mysqld.pid"), "--tmpdir="+run, "--skip-name-resolve",
		"--innodb-buffer-pool-size=128M", "--log-bin=binlog", "--max-binlog-size=16M", "--binlog-expire-logs-seconds=60")
	if err != nil {
		return nil, err
	}
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if p.exited() {
			return p, fmt.Errorf("--simfs: mariadbd exited; see %s", p.log)
		}
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second); err == nil {
			c.Close()
			return p, nil
		}
	}
	return p, fmt.Errorf("--simfs: mariadbd on 127.0.0.1:%d not up within 90s; see %s", port, p.log)
}
