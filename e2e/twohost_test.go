package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/lab"
	"github.com/walab/walab/internal/promql"
	"github.com/walab/walab/internal/testenv"
)

// Addresses of the two namespaces' veth pair: a private /30 that exists
// only inside the namespaces this test makes (nothing routes it elsewhere).
// Ports inside the namespaces are fixed: a new network namespace has no
// other listener to collide with.
const (
	dbAddr      = "10.231.0.1"
	clientAddr  = "10.231.0.2"
	dbHostname  = "dbhost"
	exporterURL = "http://" + dbAddr + ":10131"
)

// twoHosts is a database host and a client, as two network namespaces
// joined by a veth pair; the database host's processes also get their own
// hostname (a UTS namespace each). dbProcs are the database host's
// long-running processes (the exporter, mariadbd).
type twoHosts struct {
	db, client string
	dbProcs    []*proc
}

func newTwoHosts(t *testing.T) *twoHosts {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.Missing(t, "creating network namespaces needs root")
	}
	testenv.RequireBinary(t, "ip")
	testenv.RequireBinary(t, "unshare")
	id := os.Getpid() % 100000
	h := &twoHosts{db: fmt.Sprintf("walab-db-%d", id), client: fmt.Sprintf("walab-cl-%d", id)}
	vdb, vcl := fmt.Sprintf("wdb%d", id), fmt.Sprintf("wcl%d", id)
	ip := func(args ...string) {
		t.Helper()
		out, err := exec.Command("ip", args...).CombinedOutput()
		require.NoError(t, err, "ip %s: %s", strings.Join(args, " "), out)
	}
	// Registered first, so it runs last: after every process in them is gone.
	t.Cleanup(func() {
		for _, ns := range []string{h.db, h.client} {
			if out, err := exec.Command("ip", "netns", "del", ns).CombinedOutput(); err != nil {
				t.Logf("ip netns del %s: %v %s", ns, err, out)
			}
		}
	})
	ip("netns", "add", h.db)
	ip("netns", "add", h.client)
	ip("link", "add", vdb, "netns", h.db, "type", "veth", "peer", "name", vcl, "netns", h.client)
	ip("-n", h.db, "addr", "add", dbAddr+"/30", "dev", vdb)
	ip("-n", h.client, "addr", "add", clientAddr+"/30", "dev", vcl)
	for _, l := range [][2]string{{h.db, vdb}, {h.db, "lo"}, {h.client, vcl}, {h.client, "lo"}} {
		ip("-n", l[0], "link", "set", l[1], "up")
	}
	return h
}

// onDB is the argv that runs bin on the database host under its hostname.
// It joins only the host's network namespace (nsenter --net), not `ip
// netns exec`, which also unshares a mount namespace: the exporter's FUSE
// mount would then live in the exporter's own mount namespace only, and
// mariadbd started by a second `ip netns exec` (or mariadb-install-db,
// or the test's check that it is gone) would not see it. Joined this way
// the mount is in the machine's mount namespace, which every process here
// shares; the plan's `ip netns exec` steps get a copy that holds it too.
func (h *twoHosts) onDB(bin string, args ...string) []string {
	return append([]string{"nsenter", "--net=/run/netns/" + h.db, "unshare", "--uts", "sh", "-c", "hostname " + dbHostname + ` && exec "$0" "$@"`, bin}, args...)
}

func (h *twoHosts) onClient(bin string, args ...string) []string {
	return append([]string{"netns", "exec", h.client, bin}, args...)
}

// clientCurl fetches url from the client namespace.
func (h *twoHosts) clientCurl(url string) (string, error) {
	out, err := exec.Command("ip", h.onClient("curl", "-sf", "--max-time", "5", url)...).Output()
	return string(out), err
}

func (h *twoHosts) waitURL(t *testing.T, p *proc, url string) {
	t.Helper()
	eventually(t, 60*time.Second, url+" from the client", func() string {
		if p.exited() != nil {
			t.Fatalf("%s exited: %s\n%s", p.name, p.exited(), tail(p.log, 2000))
		}
		if _, err := h.clientCurl(url); err != nil {
			return err.Error()
		}
		return ""
	})
}

// startDBMariaDB runs a private mariadbd on the database host, listening
// on its veth address, with root allowed from the client. Its datadir is
// data, on the exporter's mount: mariadb-install-db writes the system
// tables through the filesystem, as walab lab's does. Its socket, pid
// file, tmpdir and log (run/mariadbd.log: its error log is its standard
// error) are in run, off the mount.
func startDBMariaDB(t *testing.T, h *twoHosts, run, data string) {
	t.Helper()
	server := firstBinary("mariadbd", "mysqld")
	install := firstBinary("mariadb-install-db", "mysql_install_db")
	if server == "" || install == "" {
		testenv.Missing(t, "mariadbd and mariadb-install-db are needed")
	}
	tmp, sock := filepath.Join(run, "tmp"), filepath.Join(run, "mysqld.sock")
	require.NoError(t, os.MkdirAll(tmp, 0o700))
	out, err := exec.Command(install, "--no-defaults", "--datadir="+data, "--user=root", "--auth-root-authentication-method=normal",
		"--skip-test-db", "--tmpdir="+tmp).CombinedOutput()
	require.NoError(t, err, "%s", out)
	argv := h.onDB(server, "--no-defaults", "--datadir="+data, "--user=root", "--bind-address=0.0.0.0",
		"--port=3306", "--socket="+sock, "--pid-file="+filepath.Join(run, "mysqld.pid"), "--tmpdir="+tmp,
		"--innodb-buffer-pool-size=128M", "--innodb-log-file-size=96M", "--skip-name-resolve", "--max-connections=200",
		// Durability is not under test here: the restores go faster without fsyncs.
		"--innodb-flush-log-at-trx-commit=0", "--innodb-doublewrite=0")
	p := start(t, run, "mariadbd", argv[0], argv[1:]...)
	h.dbProcs = append(h.dbProcs, p)
	// The socket is a file: the test reaches the server through it from
	// its own namespace.
	grant := "CREATE USER IF NOT EXISTS 'root'@'%'; GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION"
	eventually(t, 60*time.Second, "mariadbd on the database host", func() string {
		if p.exited() != nil {
			t.Fatalf("mariadbd exited: %s\n%s", p.exited(), tail(p.log, 2000))
		}
		out, err := exec.Command("mariadb", "--no-defaults", "-S", sock, "-uroot", "-e", grant).CombinedOutput()
		if err != nil {
			return string(out)
		}
		return ""
	})
}

// startDBExporter runs the exporter on the database host with walab
// lab's drive under its FUSE filesystem (lab.SimFS: 640 MiB, placement
// streams on, TRIM on), mounted on dir/simfs/mnt, and returns the
// datadir for mariadbd on the mount once the filesystem serves it: the
// exporter answers from the client and says walab_simfs_serving 1, and
// the mountpoint is a FUSE mount in this (the machine's) mount namespace.
// Before it starts it registers the check, run once the exporter has
// stopped, that its mount is gone.
func startDBExporter(t *testing.T, h *twoHosts, dir, bin string) string {
	t.Helper()
	cfg, mnt, data, err := lab.SimFS(dir)
	require.NoError(t, err)
	writeFile(t, dir, "exporter.yml", cfg+"host:\n  data_dirs: ["+data+"]\n")
	t.Cleanup(func() { requireUnmounted(t, mnt) })
	argv := h.onDB(bin, "--web.listen-address=:10131", "--config.file=exporter.yml",
		"--path.sysfs="+t.TempDir(), "--path.devfs="+t.TempDir(), "--nvme.cache-max-age=500ms", "--web.enable-mutations",
		"--collector.nvme", "--no-collector.filesystem", "--no-collector.innodb", "--no-collector.irq", "--collector.placement_trace")
	exp := start(t, dir, "exporter", argv[0], argv[1:]...)
	h.dbProcs = append(h.dbProcs, exp)
	h.waitURL(t, exp, exporterURL+"/metrics")
	serving := regexp.MustCompile(`(?m)^` + promql.SimFSServing + `\{[^}]*mountpoint="` + regexp.QuoteMeta(mnt) + `"[^}]*\} 1$`)
	eventually(t, 30*time.Second, "the exporter's filesystem on "+mnt, func() string {
		body, err := h.clientCurl(exporterURL + "/metrics")
		if err != nil {
			return err.Error()
		}
		if !serving.MatchString(body) {
			return "no " + promql.SimFSServing + " 1 for " + mnt
		}
		if fs := mountType(t, mnt); !strings.HasPrefix(fs, "fuse") {
			return mnt + " is not a FUSE mount here (" + fs + ")"
		}
		return ""
	})
	return data
}

// mountType is the filesystem type mounted on mnt in this process's mount
// namespace (/proc/self/mountinfo), or "" when nothing is.
func mountType(t *testing.T, mnt string) string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/mountinfo")
	require.NoError(t, err)
	fstype := ""
	for _, l := range strings.Split(string(b), "\n") {
		// id parent major:minor root mountpoint options [optional...] - fstype source super
		f := strings.Fields(l)
		if len(f) < 5 || f[4] != mnt {
			continue
		}
		for i := 5; i < len(f)-1; i++ {
			if f[i] == "-" {
				fstype = f[i+1] // the last mount on mnt is the one seen
			}
		}
	}
	return fstype
}

// requireUnmounted: the exporter unmounted its filesystem when it
// stopped. A mount left behind (an exporter killed, or one that did not
// unmount) fails every access with ENOTCONN: it is detached, and the test
// fails.
func requireUnmounted(t *testing.T, mnt string) {
	if fs := mountType(t, mnt); fs != "" {
		err := syscall.Unmount(mnt, syscall.MNT_DETACH)
		t.Errorf("the exporter left its %s filesystem mounted on %s (detached now: %v)", fs, mnt, err)
	}
}

// TestTwoHostsSeed000 runs the shipped two-machine seed 000 plan with the
// database host and the client in two network namespaces: the database
// host ("dbhost") has the exporter with the simulated drive under its FUSE
// filesystem and mariadbd with its datadir on it, the client has
// Prometheus, loadgen and walab experiment, and the plan's transport to
// the database host is `ip netns exec`. The report's host facts and
// checks are the database host's (the datadir on the drive's
// filesystem), the WA is MariaDB's own writes, loadgen served its metrics
// on the client's loopback, the resets ran on the database host, and no
// mount is left behind.
func TestTwoHostsSeed000(t *testing.T) {
	dir, bins := preamble(t, []string{"prometheus", "mariadb", "mariadb-dump", "curl"}, "exporter", "loadgen", "walab")
	promBin := bins["prometheus"]
	testenv.RequireFUSE(t)
	h := newTwoHosts(t)
	me, err := os.Hostname()
	require.NoError(t, err)
	require.NotEqual(t, dbHostname, me, "the test machine must not already be called %s", dbHostname)
	// The exporter first, mariadbd on its mount once it serves; stopped
	// the other way round (t.Cleanup runs last-in first-out): mariadbd,
	// then the exporter, which unmounts, then the check that it did.
	data := startDBExporter(t, h, dir, bins["exporter"])
	startDBMariaDB(t, h, filepath.Join(dir, "simfs", "mariadb"), data)

	writeE2ERules(t, dir)
	writeFile(t, dir, "prometheus.yml", "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files: [rules.yml]\nscrape_configs:\n"+
		"  - {job_name: walab-exporter, static_configs: [{targets: ['"+dbAddr+":10131']}]}\n"+
		"  - {job_name: walab-loadgen, static_configs: [{targets: ['127.0.0.1:10132']}]}\n")
	prom := start(t, dir, "prometheus", "ip", h.onClient(promBin, "--config.file=prometheus.yml", "--storage.tsdb.path=prom-data",
		"--web.listen-address=127.0.0.1:9090", "--storage.tsdb.retention.time=1h")...)
	h.waitURL(t, prom, "http://127.0.0.1:9090/-/ready")

	out := filepath.Join(dir, "experiment")
	runInClient(t, h, 6*time.Minute, bins["walab"], []string{"../deploy/experiments/seed000-two-hosts.yml", "--out", out, "--progress", "10s"},
		"WALAB_EXPORTER="+exporterURL, "WALAB_PROMETHEUS=http://127.0.0.1:9090", "WALAB_DEVICE="+simDevice, "WALAB_ROUND=5s",
		"WALAB_LOADGEN="+bins["loadgen"], "WALAB_DB_EXEC=ip netns exec "+h.db, "WALAB_DB_HOST="+dbAddr,
		"WALAB_DB_1=twohost_1", "WALAB_DB_2=twohost_2", "WALAB_BACKUP="+filepath.Join(dir, "backup"), "WALAB_RUN=15s",
		"WALAB_LOADGEN_LISTEN=127.0.0.1:10132")

	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	require.NoError(t, err)
	r := string(report)
	if keep := os.Getenv("WALAB_E2E_KEEP_REPORT"); keep != "" {
		require.NoError(t, os.WriteFile(keep, report, 0o644))
	}
	assertDBHostFacts(t, r)
	assertWAFromMariaDB(t, h, r)
	assertResetOnDB(t, h, out)
	assertLoadgenOnClient(t, h)
}

// runInClient runs `walab experiment run` in the client namespace. When
// it fails, the failure names the database host's processes that died
// (a killed exporter takes the filesystem under mariadbd's datadir with
// it, mariadbd aborts, and the experiment only sees MySQL unreachable).
func runInClient(t *testing.T, h *twoHosts, within time.Duration, walab string, args []string, env ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	cmd := exec.CommandContext(ctx, "ip", h.onClient(walab, append([]string{"experiment", "run"}, args...)...)...)
	cmd.Env = append(os.Environ(), env...)
	started := time.Now()
	b, err := cmd.CombinedOutput()
	t.Logf("walab experiment took %s", time.Since(started).Round(time.Second))
	if os.Getenv("WALAB_E2E_VERBOSE") != "" {
		t.Logf("%s", b)
	}
	if err != nil {
		for _, p := range h.dbProcs {
			if st := p.exited(); st != nil {
				err = fmt.Errorf("%w; the database host's %s exited during the experiment (%s), its log: %s", err, p.name, st, tail(p.log, 600))
			}
		}
	}
	require.NoError(t, err, "%s", b)
}

// assertDBHostFacts: the fingerprint's host and the host-fact checks name
// the database host, not the machine the runner is on.
func assertDBHostFacts(t *testing.T, r string) {
	t.Helper()
	require.Contains(t, r, "| host.hostname | "+dbHostname+" |")
	for _, re := range []string{
		// The datadir (on the mount) is on the database host, on the
		// exporter's filesystem over its backing directory.
		`\| baseline \| datadir \| PASS \| [^|]*/simfs/mnt/data/? on ` + dbHostname + `: [^ |]*/simfs/backing \(fuse\.walabsim\); drive ` + simDevice + ` is simulated`,
		`\| baseline \| free_space \| PASS \| [^|]* on ` + dbHostname + `: [0-9.]+ [KMGT]iB free \(need 96\.0 MiB\) \|`,
		`\| baseline \| irqbalance \| (PASS|WARN) \| [^|]*` + dbHostname,
		`\| baseline \| placement \| PASS \| simulated placement: off`,
		`\| streams \| placement \| PASS \| simulated placement: on`,
		`\| seed000-two-hosts-baseline-r1 \| baseline/r1/run \| 1 \|`,
		`\| seed000-two-hosts-streams-r1 \| streams/r1/run \| 1 \|`,
		`\| tools\.exporter \| [^|]+ \(commit [^|]+, go[0-9.]+\) \|`,
	} {
		require.Regexp(t, re, r)
	}
}

// assertWAFromMariaDB: the drive's WA came from MariaDB's own writes:
// compare's WA source check saw the filesystem serve throughout both runs,
// and the drive's host bytes, less the plan's two re-preconditionings
// (each writes back the pages the files hold), are the pages MariaDB's
// writes through it touched (testenv.RequireSimFSHostBytes), read from the
// client as the experiment reads the exporter. Both runs start at the fill
// of the same restored files, well short of the whole drive.
func assertWAFromMariaDB(t *testing.T, h *twoHosts, r string) {
	t.Helper()
	require.Regexp(t, `(?m)^ +pass +WA source +the database's own writes through the simulated drive's filesystem in both runs \(`+promql.SimFSServing+` 1 throughout\)$`, r)
	w := testenv.RequireSimFSHostBytes(t, func(path string) ([]byte, error) {
		body, err := h.clientCurl(exporterURL + path)
		return []byte(body), err
	})
	require.Greater(t, w.Precondition, uint64(0), "the resets wrote the restored files back")
	require.Less(t, w.Precondition, uint64(2*640<<20), "two resets wrote back the files' pages, not the whole 640 MiB drive")
	var fills []float64
	for _, run := range []string{"baseline", "streams"} {
		m := regexp.MustCompile(`\| ` + run + ` \| fill \| PASS \| fill ([0-9.]+)% \(simulated drive\)`).FindStringSubmatch(r)
		require.NotNil(t, m, "%s's fill check", run)
		f, err := strconv.ParseFloat(m[1], 64)
		require.NoError(t, err)
		require.Less(t, f, 99.0, "%s starts with the files' pages mapped, not every page", run)
		fills = append(fills, f)
	}
	require.InDelta(t, fills[0], fills[1], 3, "both runs start from the same restored files")
}

// assertResetOnDB: every reset step ran through the database host's
// prefix, and succeeded there: its `mariadb -h127.0.0.1` reaches a server
// only in the database host's namespace, the client's has none.
func assertResetOnDB(t *testing.T, h *twoHosts, out string) {
	t.Helper()
	logs, err := filepath.Glob(filepath.Join(out, "logs", "*reset*restore-1.log"))
	require.NoError(t, err)
	require.Len(t, logs, 2, "one restore per run")
	for _, l := range logs {
		b, err := os.ReadFile(l)
		require.NoError(t, err)
		require.Contains(t, string(b), "$ ip netns exec "+h.db+" /bin/sh -c 'mariadb -h127.0.0.1")
		require.Contains(t, string(b), "=== exit: exit status 0")
	}
	err = exec.Command("ip", h.onClient("mariadb", "--no-defaults", "-h127.0.0.1", "-uroot", "--connect-timeout=2", "-e", "SELECT 1")...).Run()
	require.Error(t, err, "the client namespace has no MariaDB: the restores must have run on the database host")
}

// assertLoadgenOnClient: Prometheus, in the client namespace, scraped each
// run's loadgen at the client's own loopback, which no other namespace
// shares.
func assertLoadgenOnClient(t *testing.T, h *twoHosts) {
	t.Helper()
	for _, run := range []string{"seed000-two-hosts-baseline-r1", "seed000-two-hosts-streams-r1"} {
		q := fmt.Sprintf(`count by (instance) (last_over_time(walab_loadgen_run_info{run_id=%q}[10m]))`, run)
		body, err := h.clientCurl("http://127.0.0.1:9090/api/v1/query?query=" + url.QueryEscape(q))
		require.NoError(t, err)
		var resp struct {
			Data struct {
				Result []struct {
					Metric map[string]string `json:"metric"`
				} `json:"result"`
			} `json:"data"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &resp), body)
		require.Len(t, resp.Data.Result, 1, "%s: %s", run, body)
		require.Equal(t, "127.0.0.1:10132", resp.Data.Result[0].Metric["instance"])
	}
}
