package testenv

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Instance is a mariadbd the test started itself, on loopback.
type Instance struct {
	Addr    string
	Port    int
	DataDir string
	cmd     *exec.Cmd
	args    []string
	socket  string
	t       testing.TB
}

// StartMariaDB starts a second, private mariadbd (own datadir, own port) and
// stops it when the test ends. extra are additional server options.
func StartMariaDB(t testing.TB, extra ...string) *Instance {
	t.Helper()
	return StartMariaDBAt(t, "", extra...)
}

// StartMariaDBAt is StartMariaDB with the datadir at data (e.g. on a
// filesystem the test mounted; "" puts it in the test's temporary
// directory). A datadir that is already initialised (has mysql/) is
// started as it is, without mariadb-install-db. The socket, pid file, error log and
// tmpdir stay in that temporary directory.
func StartMariaDBAt(t testing.TB, data string, extra ...string) *Instance {
	t.Helper()
	skipShort(t, "a private mariadbd")
	server := findServer(t)
	install := firstOnPath("mariadb-install-db", "mysql_install_db")
	if install == "" {
		Missing(t, "mariadb-install-db not found")
	}
	dir := t.TempDir()
	if data == "" {
		data = filepath.Join(dir, "data")
	}
	if _, err := os.Stat(filepath.Join(data, "mysql")); err == nil {
		install = "" // an initialised datadir: start on it as it is
	}
	// Each instance has its own tmpdir: a mariadbd starting up removes the
	// #sql temporary tables it finds in its tmpdir, and with a shared /tmp
	// that was another instance's bootstrap table ("Unknown table
	// mysql.tmp_user_sys" when two tests start servers at once).
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	if install != "" {
		out, err := exec.Command(install, "--no-defaults", "--datadir="+data, "--user=root",
			"--auth-root-authentication-method=normal", "--skip-test-db", "--tmpdir="+tmp).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", install, err, out)
		}
	}
	port := FreePort(t)
	in := &Instance{Addr: "127.0.0.1:" + strconv.Itoa(port), Port: port, DataDir: data, t: t, socket: filepath.Join(dir, "mysqld.sock")}
	in.args = append([]string{"--no-defaults", "--datadir=" + data, "--user=root",
		"--bind-address=127.0.0.1", "--port=" + strconv.Itoa(port),
		"--socket=" + filepath.Join(dir, "mysqld.sock"), "--pid-file=" + filepath.Join(dir, "mysqld.pid"),
		"--log-error=" + filepath.Join(dir, "error.log"), "--tmpdir=" + tmp,
		"--innodb-buffer-pool-size=64M", "--innodb-log-file-size=48M", "--skip-name-resolve",
		"--max-connections=500"}, extra...)
	in.start(server)
	t.Cleanup(in.Stop)
	return in
}

func (in *Instance) start(server string) {
	in.t.Helper()
	in.cmd = exec.Command(server, in.args...)
	in.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := in.cmd.Start(); err != nil {
		in.t.Fatalf("start %s: %v", server, err)
	}
	if err := ping(in.Addr, 60*time.Second); err != nil {
		log, _ := os.ReadFile(filepath.Join(in.dir(), "error.log"))
		in.Stop()
		in.t.Fatalf("mariadbd on %s did not come up: %v\n%s", in.Addr, err, log)
	}
}

// CommandLine is the server binary and options the instance runs with, so
// that a test can hand a restart to a script of its own (the script's
// server is then the test's to stop).
func (in *Instance) CommandLine() (bin string, args []string) {
	return findServer(in.t), append([]string(nil), in.args...)
}

// PIDFile is the server's pid file.
func (in *Instance) PIDFile() string { return filepath.Join(in.dir(), "mysqld.pid") }

// PID is the running server's process id (0 when it is not running).
func (in *Instance) PID() int {
	if in.cmd == nil || in.cmd.Process == nil {
		return 0
	}
	return in.cmd.Process.Pid
}

// ErrorLog is the server's error log.
func (in *Instance) ErrorLog() string { return filepath.Join(in.dir(), "error.log") }

// dir holds the socket, pid file, error log and tmpdir.
func (in *Instance) dir() string { return filepath.Dir(in.socket) }

// Open connects as root, creating database db fresh (if not empty).
func (in *Instance) Open(db string) (*sql.DB, string) { return prepare(in.t, in.Addr, db) }

// Kill ends the server abruptly (SIGKILL), as a crash would.
func (in *Instance) Kill() {
	if in.cmd != nil && in.cmd.Process != nil {
		_ = in.cmd.Process.Kill()
		_, _ = in.cmd.Process.Wait()
		in.cmd = nil
	}
}

// Restart starts the server again on the same port and datadir (after Kill or Stop).
func (in *Instance) Restart() {
	in.t.Helper()
	in.Kill()
	in.start(findServer(in.t))
}

// Stop shuts the server down (SIGTERM, then SIGKILL after 20 s).
func (in *Instance) Stop() {
	if in.cmd == nil || in.cmd.Process == nil {
		return
	}
	_ = in.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _, _ = in.cmd.Process.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = in.cmd.Process.Kill()
		<-done
	}
	in.cmd = nil
}

func (in *Instance) String() string { return fmt.Sprintf("mariadbd(%s)", in.Addr) }

func findServer(t testing.TB) string {
	for _, p := range []string{"/usr/sbin/mariadbd", "/usr/sbin/mysqld"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p := firstOnPath("mariadbd", "mysqld"); p != "" {
		return p
	}
	Missing(t, "mariadbd not installed")
	return ""
}

func firstOnPath(names ...string) string {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}
