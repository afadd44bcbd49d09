package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

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
// hostname (a UTS namespace each).
type twoHosts struct{ db, client string }

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
func (h *twoHosts) onDB(bin string, args ...string) []string {
	return append([]string{"netns", "exec", h.db, "unshare", "--uts", "sh", "-c", "hostname " + dbHostname + ` && exec "$0" "$@"`, bin}, args...)
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
		if p.cmd.ProcessState != nil {
			t.Fatalf("%s exited: %s\n%s", p.name, p.cmd.ProcessState, tail(p.log, 2000))
		}
		if _, err := h.clientCurl(url); err != nil {
			return err.Error()
		}
		return ""
	})
}

// startDBMariaDB runs a private mariadbd on the database host, listening
// on its veth address, with root allowed from the client.
func startDBMariaDB(t *testing.T, h *twoHosts, dir string) string {
	t.Helper()
	server := firstBinary("mariadbd", "mysqld")
	install := firstBinary("mariadb-install-db", "mysql_install_db")
	if server == "" || install == "" {
		testenv.Missing(t, "mariadbd and mariadb-install-db are needed")
	}
	base := filepath.Join(dir, "db")
	data, tmp, sock := filepath.Join(base, "data"), filepath.Join(base, "tmp"), filepath.Join(base, "mysqld.sock")
	require.NoError(t, os.MkdirAll(tmp, 0o700))
	out, err := exec.Command(install, "--no-defaults", "--datadir="+data, "--user=root", "--auth-root-authentication-method=normal",
		"--skip-test-db", "--tmpdir="+tmp).CombinedOutput()
	require.NoError(t, err, "%s", out)
	p := start(t, base, "mariadbd", "ip", h.onDB(server, "--no-defaults", "--datadir="+data, "--user=root", "--bind-address=0.0.0.0",
		"--port=3306", "--socket="+sock, "--pid-file="+filepath.Join(base, "mysqld.pid"), "--log-error="+filepath.Join(base, "error.log"),
		"--tmpdir="+tmp, "--innodb-buffer-pool-size=128M", "--innodb-log-file-size=96M", "--skip-name-resolve", "--max-connections=200",
		// Durability is not under test here: the restores go faster without fsyncs.
		"--innodb-flush-log-at-trx-commit=0", "--innodb-doublewrite=0")...)
	// The socket is a file: the test reaches the server through it from
	// its own namespace.
	grant := "CREATE USER IF NOT EXISTS 'root'@'%'; GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION"
	eventually(t, 60*time.Second, "mariadbd on the database host", func() string {
		if p.cmd.ProcessState != nil {
			t.Fatalf("mariadbd exited: %s\n%s", p.cmd.ProcessState, tail(filepath.Join(base, "error.log"), 2000))
		}
		out, err := exec.Command("mariadb", "--no-defaults", "-S", sock, "-uroot", "-e", grant).CombinedOutput()
		if err != nil {
			return string(out)
		}
		return ""
	})
	return base
}

// TestTwoHostsSeed000 runs the shipped two-machine seed 000 plan with the
// database host and the client in two network namespaces: the database
// host ("dbhost") has mariadbd and the exporter on the simulated drive, the
// client has Prometheus, loadgen and walab experiment, and the plan's
// transport to the database host is `ip netns exec`. The report's host
// facts and checks are the database host's, loadgen served its metrics on
// the client's loopback, and the resets ran on the database host.
func TestTwoHostsSeed000(t *testing.T) {
	if testing.Short() {
		t.Skip("e2e: skipped with -short")
	}
	promBin := testenv.RequireBinary(t, "prometheus")
	for _, b := range []string{"mariadb", "mariadb-dump", "curl"} {
		testenv.RequireBinary(t, b)
	}
	h := newTwoHosts(t)
	me, err := os.Hostname()
	require.NoError(t, err)
	require.NotEqual(t, dbHostname, me, "the test machine must not already be called %s", dbHostname)
	dir := t.TempDir()
	bins := map[string]string{}
	for _, b := range []string{"exporter", "loadgen", "walab"} {
		bin, ok := goBuild(t, dir, b)
		require.True(t, ok, b)
		bins[b] = bin
	}
	dbDir := startDBMariaDB(t, h, dir)

	writeFile(t, dir, "exporter.yml", simExporterConfig+"host:\n  data_dirs: ["+dbDir+"]\n")
	exp := start(t, dir, "exporter", "ip", h.onDB(bins["exporter"], "--web.listen-address=:10131", "--config.file=exporter.yml",
		"--path.sysfs="+t.TempDir(), "--path.devfs="+t.TempDir(), "--nvme.cache-max-age=500ms", "--web.enable-mutations",
		"--collector.nvme", "--no-collector.filesystem", "--no-collector.innodb", "--no-collector.irq", "--collector.placement_trace")...)
	h.waitURL(t, exp, exporterURL+"/metrics")

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
	assertResetOnDB(t, h, out)
	assertLoadgenOnClient(t, h)
}

// runInClient runs `walab experiment run` in the client namespace.
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
	require.NoError(t, err, "%s", b)
}

// assertDBHostFacts: the fingerprint's host and the host-fact checks name
// the database host, not the machine the runner is on.
func assertDBHostFacts(t *testing.T, r string) {
	t.Helper()
	require.Contains(t, r, "| host.hostname | "+dbHostname+" |")
	for _, re := range []string{
		`\| baseline \| datadir \| PASS \| [^|]*/db/data/? on ` + dbHostname + `: `,
		`\| baseline \| free_space \| PASS \| [^|]* on ` + dbHostname + `: [0-9.]+ [KMGT]iB free \(need 1\.0 GiB\) \|`,
		`\| baseline \| irqbalance \| (PASS|WARN) \| [^|]*` + dbHostname,
		`\| streams \| placement \| PASS \| simulated placement: on`,
		`\| seed000-two-hosts-baseline-r1 \| baseline/r1/run \| 1 \|`,
		`\| seed000-two-hosts-streams-r1 \| streams/r1/run \| 1 \|`,
		`\| tools\.exporter \| [^|]+ \(commit [^|]+, go[0-9.]+\) \|`,
	} {
		require.Regexp(t, re, r)
	}
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
