package lab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// With Options.SimFS the lab's drive sits under the exporter's FUSE
// filesystem (sim.fs, docs/simfs.md) and the lab runs a private mariadbd
// whose datadir is on it: the drive's WA comes from MariaDB's own writes.

// fuseHost is that private mariadbd: both of the plan's instances are it,
// on a free port; its databases are locked once it is up.
type fuseHost struct {
	o            Options
	port1, port2 int
	s            *session
}

func (h *fuseHost) usable() error { return simfsUsable(h.o.MariaDBD) }

// claim takes a free loopback port for the private server.
func (h *fuseHost) claim() error {
	port, err := freePort()
	if err != nil {
		return err
	}
	h.port1, h.port2 = port, port
	return nil
}

func (h *fuseHost) databases() []database {
	return []database{{h.port1, h.o.DB1}, {h.port2, h.o.DB2}}
}

func (h *fuseHost) open(ctx context.Context) ([]string, error) { return h.dataDirs(ctx) }
func (h *fuseHost) dataDirs(context.Context) ([]string, error) {
	return []string{simfsDataDir(h.o.Out)}, nil
}

// growth follows the fill: under the filesystem the drive maps exactly
// the pages the files hold.
func (h *fuseHost) growth(addr string, round time.Duration, stop func(error)) *growth {
	return &growth{read: readFill(&http.Client{}, "http://"+addr), round: round, every: time.Second, stop: stop}
}

// drive makes out/simfs's directories and returns simfsDrive's section.
func (h *fuseHost) drive() (string, error) {
	if err := simfsDirs(h.o.Out); err != nil {
		return "", err
	}
	return simfsDrive(h.o.Out), nil
}

// start starts the private mariadbd on the mounted filesystem and locks
// its databases, as the shared servers' are.
func (h *fuseHost) start(ctx context.Context, procs *[]*proc) error {
	h.o.printf("lab: starting a private mariadbd on 127.0.0.1:%d, its datadir on the simulated drive's filesystem", h.port1)
	p, err := startMariaDB(ctx, h.o, h.port1)
	if p != nil {
		*procs = append(*procs, p)
	}
	if err != nil {
		return err
	}
	h.s, err = openSession(ctx, h.o.Out, h.databases())
	return err
}

func (h *fuseHost) close() {
	if h.s != nil {
		h.s.close()
		h.s = nil
	}
}

func (h *fuseHost) exporterRole() string {
	return "exporter (the simulated drive and the filesystem under MariaDB's datadir)"
}

func (h *fuseHost) source() string {
	return "MariaDB's own writes (a private mariadbd, datadir on the simulated drive's filesystem " + filepath.Join(h.o.Out, "simfs", "mnt") + ")"
}

// simfsCapacity is sized to the lab's data, as bench/simfs-wa.sh sizes its
// drive: after a restore the private server's files (the two TPC-C
// warehouses, ibdata1, the redo log, with InnoDB's fallocate reservations)
// hold about 470 MiB, about 75 % of this drive once the plan's reset has
// re-preconditioned it, so the runs reach garbage collection and placement
// shows. The fullest moment is the prepare's load: the data plus the
// load's binary logs of the last simfsBinlogExpire seconds and the file
// being written. bench/RESULTS-sim.md has the figures.
const simfsCapacity = "640MiB"

// simfsBinlogExpire and simfsBinlogSize bound the binary logs the drive
// holds at once (a binary log older than the expiry is purged, a TRIM, at
// the next rotation): the load's would not fit a drive sized to the data
// with seed 000's 1800 s.
const (
	simfsBinlogExpire = "5"
	simfsBinlogSize   = "8M"
)

// simfsDrive is the lab's sim section with the drive under the filesystem
// mounted on out/simfs/mnt over out/simfs/backing (exporterConfig adds
// its state file).
func simfsDrive(out string) string {
	return fmt.Sprintf(`sim:
  name: %s
  capacity: %s
  tick: 0s
  placement:
    streams: true
  fs:
    mountpoint: %s
    backing: %s
    discard: true
`, Device, simfsCapacity, filepath.Join(out, "simfs", "mnt"), filepath.Join(out, "simfs", "backing"))
}

// simfsUsable refuses the lab on MariaDB's own writes where it cannot
// run: mounting the filesystem needs root and /dev/fuse. It refuses rather
// than falling back to the synthetic mix, whose verdict would read as
// MariaDB's (and the plan's reset drops the page cache: root anyway).
func simfsUsable(mariadbd string) error {
	const hint = "; --no-simfs runs the drive's synthetic MySQL-like mix instead, whose WA is not MariaDB's"
	if os.Geteuid() != 0 {
		return errors.New("the simulated drive under MariaDB's own writes mounts a FUSE filesystem: run as root" + hint)
	}
	f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("the simulated drive under MariaDB's own writes needs /dev/fuse: %w (apt-get install fuse3; in a container, --device /dev/fuse)%s", err, hint)
	}
	_ = f.Close()
	if mariadbd == "" {
		return errors.New("--mariadbd.bin not given" + hint)
	}
	return nil
}

// simfsDataDir is where the private mariadbd keeps its data: on the mount.
func simfsDataDir(out string) string { return filepath.Join(out, "simfs", "mnt", "data") }

// SimFS is walab lab's drive under the FUSE filesystem for a caller that
// runs the exporter and mariadbd itself (e2e's two-host test): it makes
// out/simfs's directories and returns the exporter's configuration (the
// lab's WA sampler, its history in memory only, and simfsDrive's sim
// section, without state files), the mountpoint and the datadir on it.
// The caller adds its own host section.
func SimFS(out string) (config, mountpoint, dataDir string, err error) {
	if err := simfsDirs(out); err != nil {
		return "", "", "", err
	}
	config = "wa:\n  persist: false\n" + waSampling + simfsDrive(out)
	return config, filepath.Join(out, "simfs", "mnt"), simfsDataDir(out), nil
}

// simfsDirs makes the mountpoint, the backing directory and the private
// mariadbd's run directory in out/simfs, each 0700 like out/simfs itself:
// only the lab's user (root) reaches the mount, the backing files (where
// the mount's permission checks do not apply) and the server's socket.
// The lab's mariadbd runs as root, so the mount needs no allow_other.
func simfsDirs(out string) error {
	for _, d := range []string{"", "mnt", "backing", "mariadb"} {
		p := filepath.Join(out, "simfs", d)
		if err := os.MkdirAll(p, 0o700); err != nil {
			return err
		}
		if err := os.Chmod(p, 0o700); err != nil {
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
func startMariaDB(ctx context.Context, o Options, port int) (*proc, error) {
	run := filepath.Join(o.Out, "simfs", "mariadb")
	data := simfsDataDir(o.Out)
	install, err := exec.LookPath("mariadb-install-db")
	if err != nil {
		return nil, fmt.Errorf("the private mariadbd: %w (Debian package mariadb-server)", err)
	}
	out, err := exec.CommandContext(ctx, install, "--no-defaults", "--datadir="+data, "--user=root",
		"--auth-root-authentication-method=normal", "--skip-test-db", "--tmpdir="+run).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("the private mariadbd: mariadb-install-db on %s: %w\n%s", data, err, out)
	}
	p, err := start(o.Out, "mariadbd", o.MariaDBD, "--no-defaults", "--datadir="+data, "--user=root",
		"--bind-address=127.0.0.1", "--port="+strconv.Itoa(port), "--socket="+filepath.Join(run, "mysqld.sock"),
		"--pid-file="+filepath.Join(run, "mysqld.pid"), "--tmpdir="+run, "--skip-name-resolve",
		"--innodb-buffer-pool-size=128M", "--log-bin=binlog", "--max-binlog-size="+simfsBinlogSize, "--binlog-expire-logs-seconds="+simfsBinlogExpire)
	if err != nil {
		return nil, err
	}
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if p.exited() {
			return p, fmt.Errorf("the private mariadbd exited; see %s", p.log)
		}
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second); err == nil {
			c.Close()
			return p, nil
		}
	}
	return p, fmt.Errorf("the private mariadbd on 127.0.0.1:%d not up within 90s; see %s", port, p.log)
}

// detach lazily unmounts the drive's filesystem if it is still mounted
// once the exporter is gone: an exporter killed mid-run leaves its mount
// behind, and every access to it fails with ENOTCONN.
func (h *fuseHost) detach() {
	o := h.o
	mnt := filepath.Join(o.Out, "simfs", "mnt")
	mounts, err := os.ReadFile("/proc/self/mounts")
	if err != nil || !strings.Contains(string(mounts), " "+mnt+" ") {
		return
	}
	if err := syscall.Unmount(mnt, syscall.MNT_DETACH); err != nil {
		o.printf("lab: the drive's filesystem is still mounted on %s: %v (umount -l it)", mnt, err)
		return
	}
	o.printf("lab: unmounted the drive's filesystem the exporter left on %s", mnt)
}
