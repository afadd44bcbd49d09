package release

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	shellwords "github.com/mattn/go-shellwords"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// builtPackages runs Dist for this machine's architecture on the work
// tree (uncommitted changes allowed) and returns the output directory.
func builtPackages(t *testing.T) (string, Source) {
	t.Helper()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	s, err := ReadSource(context.Background(), root)
	require.NoError(t, err)
	out := t.TempDir()
	_, err = Dist(context.Background(), s, Options{Out: out, Arches: []string{runtime.GOARCH}, AllowDirty: true})
	require.NoError(t, err)
	return out, s
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	require.NoError(t, err, "%s %s:\n%s", name, strings.Join(args, " "), out)
	return string(out)
}

// TestDebianChecks checks the packages as Debian checks its own: lintian
// with no error and no warning (each one fixed or overridden with a
// reason in files/lintian-*), systemd-analyze verify on the unit, the
// .rpm's metadata and file list against the .deb's, then the .deb
// installed on this machine: the unit's ExecStart run as its user with
// its capabilities, scraped, its state file read, then dpkg -r and -P.
func TestDebianChecks(t *testing.T) {
	for _, b := range []string{"lintian", "dpkg", "dpkg-deb", "rpm", "setpriv", "systemd-analyze", "adduser"} {
		testenv.RequireBinary(t, b)
	}
	out, s := builtPackages(t)
	arch := runtime.GOARCH
	debs, _ := filepath.Glob(filepath.Join(out, "*.deb"))
	require.Len(t, debs, 2)
	t.Run("lintian", func(t *testing.T) {
		for _, d := range debs {
			// lintian exits 0 on warnings unless told; its tags are the verdict.
			o, _ := exec.Command("lintian", "--fail-on", "none", "--no-tag-display-limit", d).CombinedOutput()
			for _, l := range strings.Split(string(o), "\n") {
				require.False(t, strings.HasPrefix(l, "E: ") || strings.HasPrefix(l, "W: "), "%s: %s", filepath.Base(d), l)
			}
		}
	})
	rpmName := func(pkg string) string {
		m, _ := filepath.Glob(filepath.Join(out, pkg+"-"+s.Version+"-1.*.rpm"))
		require.Len(t, m, 1, pkg)
		return m[0]
	}
	debName := func(pkg string) string {
		return filepath.Join(out, fmt.Sprintf("%s_%s-1_%s.deb", pkg, s.Version, arch))
	}
	t.Run("rpm", func(t *testing.T) {
		for _, p := range Packages() {
			info := run(t, "rpm", "-qip", rpmName(p.Name))
			for _, want := range []string{"Name        : " + p.Name, "Version     : " + s.Version, "Release     : 1",
				"Build Host  : reproducible", "URL         : " + Homepage, "Summary     : " + strings.SplitN(p.Description, "\n", 2)[0]} {
				require.Contains(t, info, want)
			}
			require.Equal(t, debFiles(t, debName(p.Name)), rpmFiles(t, rpmName(p.Name)), p.Name)
		}
		scripts := run(t, "rpm", "-qp", "--scripts", rpmName("walab-exporter"))
		require.Contains(t, scripts, "useradd -r -g walab")
		require.Contains(t, run(t, "rpm", "-qpc", rpmName("walab-exporter")), "/etc/walab/exporter.yml")
		// %pre creates the group before rpm lays the files down: the
		// configuration arrives 0640 root:walab.
		require.Regexp(t, `(?m)^-rw-r-----\s+\d+\s+root\s+walab\s.*\s`+ConfigPath+`$`, run(t, "rpm", "-qlvp", rpmName("walab-exporter")))
		require.Contains(t, scripts, "preuninstall scriptlet")
		require.Contains(t, scripts, "disable --now walab-exporter.service")
	})
	t.Run("install", func(t *testing.T) { installScrapeRemovePurge(t, debName("walab-exporter"), debName("walab"), s) })
}

// debFiles lists a .deb's files and links, less the two Debian alone
// carries (lintian overrides, changelog.Debian.gz; an rpm's changelog is
// in its header).
func debFiles(t *testing.T, deb string) []string {
	var fs []string
	o := run(t, "sh", "-c", "dpkg-deb --fsys-tarfile '"+deb+"' | tar -t")
	for _, f := range strings.Fields(o) {
		f = strings.TrimPrefix(f, ".")
		if strings.HasSuffix(f, "/") || strings.HasPrefix(f, "/usr/share/lintian/") || strings.HasSuffix(f, "/changelog.Debian.gz") {
			continue
		}
		fs = append(fs, f)
	}
	slices.Sort(fs)
	return fs
}

func rpmFiles(t *testing.T, r string) []string {
	var fs []string
	for _, f := range strings.Fields(run(t, "rpm", "-qlp", r)) {
		fs = append(fs, f)
	}
	slices.Sort(fs)
	return fs
}

// lockMachine serialises the tests that install packages on this machine.
func lockMachine(t *testing.T) {
	f, err := os.OpenFile("/run/lock/walab-release-test.lock", os.O_CREATE|os.O_RDWR, 0o600)
	require.NoError(t, err)
	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX))
	t.Cleanup(func() { f.Close() })
}

// dpkg runs dpkg, waiting while another dpkg or apt holds its lock.
func dpkg(t *testing.T, args ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	for {
		o, err := exec.Command("dpkg", args...).CombinedOutput()
		if err == nil {
			return
		}
		if !strings.Contains(string(o), "lock") || time.Now().After(deadline) {
			t.Fatalf("dpkg %s: %v\n%s", strings.Join(args, " "), err, o)
		}
		time.Sleep(3 * time.Second)
	}
}

func installed(pkg string) bool {
	o, err := exec.Command("dpkg-query", "-W", "-f=${Status}", pkg).Output()
	return err == nil && strings.Contains(string(o), "installed") && !strings.Contains(string(o), "not-installed")
}

func userExists(name string) bool { return exec.Command("getent", "passwd", name).Run() == nil }

func installScrapeRemovePurge(t *testing.T, exporterDeb, walabDeb string, s Source) {
	if os.Geteuid() != 0 {
		testenv.Missing(t, "root, to install the packages")
	}
	lockMachine(t)
	// Never remove what the test did not install.
	for _, p := range []string{"walab-exporter", "walab"} {
		require.False(t, installed(p), "%s is installed on this machine; the test would remove it", p)
	}
	require.False(t, userExists("walab"), "a user walab exists on this machine; the test would remove it")
	for _, p := range []string{StateDir, "/etc/walab"} {
		_, err := os.Lstat(p)
		require.True(t, os.IsNotExist(err), "%s exists on this machine; the test would remove it", p)
	}
	var exporter *exec.Cmd
	t.Cleanup(func() {
		if exporter != nil && exporter.Process != nil {
			_ = exporter.Process.Kill()
			_, _ = exporter.Process.Wait()
		}
		for _, p := range []string{"walab-exporter", "walab"} {
			_ = exec.Command("dpkg", "-P", p).Run()
		}
		_ = exec.Command("deluser", "--system", "--quiet", "walab").Run()
		_ = exec.Command("delgroup", "--system", "--quiet", "walab").Run()
		_ = os.RemoveAll(StateDir)
		_ = os.RemoveAll("/etc/walab")
	})
	dpkg(t, "-i", exporterDeb, walabDeb)

	// What the maintainer scripts made.
	pw := strings.Split(strings.TrimSpace(run(t, "getent", "passwd", "walab")), ":")
	require.Equal(t, StateDir, pw[5], "home")
	require.Contains(t, []string{"/usr/sbin/nologin", "/bin/false"}, pw[6], "shell")
	st, err := os.Stat(StateDir)
	require.NoError(t, err)
	require.Equal(t, "walab", strings.TrimSpace(run(t, "stat", "-c", "%U", StateDir)))
	require.Equal(t, os.FileMode(0o750), st.Mode().Perm())
	checkPermissions(t)
	// walab lab from the package: the plan it runs without --plan.
	require.Equal(t, "644 root root", strings.TrimSpace(run(t, "stat", "-c", "%a %U %G", LabPlan)))
	for _, c := range []string{"walab --version", "walab-loadgen --version"} {
		require.Contains(t, run(t, "sh", "-c", c+" 2>&1"), "version "+s.Version+" (revision: "+s.Revision)
	}
	t.Run("systemd-analyze verify", func(t *testing.T) {
		o, err := exec.Command("systemd-analyze", "verify", UnitPath).CombinedOutput()
		require.NoError(t, err, "%s", o)
		require.Empty(t, strings.TrimSpace(string(o)))
	})

	// The administrator's edits: a sampling interval a test can wait for,
	// the listen address through the options file.
	port := testenv.FreePort(t)
	cfg := run(t, "cat", "/etc/walab/exporter.yml")
	require.NoError(t, os.WriteFile("/etc/walab/exporter.yml", []byte(strings.Replace(cfg, "interval: 60s", "interval: 1s", 1)), 0o644))
	require.NoError(t, os.WriteFile("/etc/default/walab-exporter", []byte(fmt.Sprintf("ARGS=\"--web.listen-address=127.0.0.1:%d\"\n", port)), 0o644))

	exporter = unitCommand(t, UnitPath)
	logs := &testenv.Buffer{}
	exporter.Stdout, exporter.Stderr = logs, logs
	require.NoError(t, exporter.Start())
	metrics := scrape(t, fmt.Sprintf("http://127.0.0.1:%d/metrics", port), logs)
	require.Regexp(t, `walab_build_info\{goversion="go[^"]+",revision="`+s.Revision+`[^"]*",version="`+regexp.QuoteMeta(s.Version)+`"\} 1`, metrics)
	status := run(t, "cat", fmt.Sprintf("/proc/%d/status", exporter.Process.Pid))
	require.Regexp(t, `(?m)^CapEff:\s+0000000400280000$`, status, "CAP_SYS_ADMIN, CAP_SYS_PTRACE and CAP_SYSLOG alone")
	require.Regexp(t, `(?m)^Uid:\s+`+pw[2]+`\s`, status)
	state := filepath.Join(StateDir, "wa-state.bin")
	require.Eventually(t, func() bool { b, err := os.ReadFile(state); return err == nil && len(b) > 8 }, 30*time.Second, 200*time.Millisecond, "no %s\n%s", state, logs)
	b, err := os.ReadFile(state)
	require.NoError(t, err)
	require.Equal(t, "WALABWA\x00", string(b[:8]))
	require.Equal(t, "walab", strings.TrimSpace(run(t, "stat", "-c", "%U", state)))
	require.NoError(t, exporter.Process.Signal(syscall.SIGTERM))
	_ = exporter.Wait()
	exporter = nil

	// Remove keeps the configuration, the WA history and the user.
	dpkg(t, "-r", "walab-exporter", "walab")
	for _, gone := range []string{"/usr/bin/walab-exporter", "/usr/bin/walab", UnitPath, "/lib/udev/rules.d/60-walab-exporter.rules"} {
		_, err := os.Lstat(gone)
		require.True(t, os.IsNotExist(err), "%s stays after dpkg -r", gone)
	}
	for _, stays := range []string{"/etc/walab/exporter.yml", "/etc/default/walab-exporter", state} {
		_, err := os.Stat(stays)
		require.NoError(t, err, "dpkg -r removed %s", stays)
	}
	require.True(t, userExists("walab"))
	// Purge removes them; the system user stays (Debian's habit, deb-postrm).
	dpkg(t, "-P", "walab-exporter", "walab")
	for _, gone := range []string{"/etc/walab", "/etc/default/walab-exporter", StateDir} {
		_, err := os.Lstat(gone)
		require.True(t, os.IsNotExist(err), "%s stays after dpkg -P", gone)
	}
	require.False(t, installed("walab-exporter"))
	require.True(t, userExists("walab"), "purge keeps the system user")
}

// checkPermissions: the configuration, which may hold a database password,
// is 0640 root:walab: the service's user reads it, another local user
// (nobody) does not; the udev rule installed gives the controllers to the
// user walab alone. Before, the configuration was 0644 and the rule gave
// the controllers to group walab.
func checkPermissions(t *testing.T) {
	t.Helper()
	require.Equal(t, "640 root walab", strings.TrimSpace(run(t, "stat", "-c", "%a %U %G", ConfigPath)))
	require.Equal(t, "755 root root", strings.TrimSpace(run(t, "stat", "-c", "%a %U %G", "/etc/walab")))
	asWalab := exec.Command("setpriv", "--reuid=walab", "--regid=walab", "--init-groups", "cat", ConfigPath)
	out, err := asWalab.CombinedOutput()
	require.NoError(t, err, "the service's user reads its configuration: %s", out)
	require.Contains(t, string(out), "state_file:")
	asNobody := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "cat", ConfigPath)
	out, err = asNobody.CombinedOutput()
	require.Error(t, err, "another local user reads %s: %s", ConfigPath, out)
	require.Contains(t, string(out), "Permission denied")
	rule := run(t, "cat", "/lib/udev/rules.d/60-walab-exporter.rules")
	require.Contains(t, rule, `OWNER="walab", GROUP="root", MODE="0400"`)
}

// unitCommand is the unit's ExecStart as systemd would start it, short of
// the sandbox: $ARGS from its EnvironmentFile, as its User and Group,
// with its AmbientCapabilities as the only capabilities (setpriv).
func unitCommand(t *testing.T, path string) *exec.Cmd {
	u := unitFile(t, path)
	env := map[string]string{}
	envFile := strings.TrimPrefix(u["Service.EnvironmentFile"][0], "-")
	for _, l := range strings.Split(run(t, "cat", envFile), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), "="); ok && !strings.HasPrefix(k, "#") {
			vs, err := shellwords.Parse(v)
			require.NoError(t, err, l)
			env[k] = strings.Join(vs, " ")
		}
	}
	var argv []string
	for _, w := range strings.Fields(u["Service.ExecStart"][0]) {
		if strings.HasPrefix(w, "$") { // systemd splits an unbraced $VAR at whitespace
			argv = append(argv, strings.Fields(env[w[1:]])...)
			continue
		}
		argv = append(argv, w)
	}
	var caps []string
	for _, c := range strings.Fields(u["Service.AmbientCapabilities"][0]) {
		caps = append(caps, "+"+strings.ToLower(strings.TrimPrefix(c, "CAP_")))
	}
	set := "-all," + strings.Join(caps, ",")
	args := append([]string{"--reuid=" + u["Service.User"][0], "--regid=" + u["Service.Group"][0], "--init-groups",
		"--inh-caps=" + set, "--ambient-caps=" + set, "--bounding-set=" + set, "--no-new-privs", "--"}, argv...)
	cmd := exec.Command("setpriv", args...)
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd
}

func unitFile(t *testing.T, path string) map[string][]string {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return parseUnit(t, b)
}

func scrape(t *testing.T, url string, logs *testenv.Buffer) string {
	var body string
	require.Eventually(t, func() bool {
		resp, err := http.Get(url)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var sb strings.Builder
		_, err = io.Copy(&sb, resp.Body)
		body = sb.String()
		return err == nil && resp.StatusCode == 200
	}, 60*time.Second, 200*time.Millisecond, "no scrape of %s\n%s", url, logs)
	return body
}
