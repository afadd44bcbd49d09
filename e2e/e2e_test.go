// Package e2e runs the lab on loopback: the exporter on a replayed NVMe
// device, node_exporter, Prometheus with walab's generated rules, and
// Alertmanager posting to a webhook the test owns. It checks that the WA
// rules produce series, that a WA regression injected through the device
// reaches the webhook, and that every dashboard query parses and the
// panels this stack feeds return data.
package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/alerts"
	"github.com/walab/walab/internal/dashboard"
	"github.com/walab/walab/internal/testenv"
)

const deviceName = "nvme0"

func TestLab(t *testing.T) {
	dir, bins := preamble(t, []string{"prometheus", "prometheus-alertmanager"})
	promBin, amBin := bins["prometheus"], bins["prometheus-alertmanager"]

	// The device: WA 1.5 until the test injects a regression.
	dev := newDevice(t, filepath.Join(dir, "replay"), deviceName, 1.5)
	stepCtx, stopSteps := context.WithCancel(context.Background())
	t.Cleanup(stopSteps)
	stepErr := make(chan error, 1)
	go func() {
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stepCtx.Done():
				return
			case <-tick.C:
				if err := dev.step(); err != nil {
					stepErr <- err
					return
				}
			}
		}
	}()

	exporterBin, ok := goBuild(t, dir, "exporter")
	require.True(t, ok, "./exporter/main.go is missing")
	loadgenBin, haveLoadgen := goBuild(t, dir, "loadgen")
	// The machine's MariaDB and a private second mariadbd: seed 000's two instances.
	_, dsn1 := testenv.MariaDB(t, "walab_test_e2e")
	second := testenv.StartMariaDB(t)
	_, dsn2 := second.Open("walab_test_e2e")
	dsns := []string{dsn1, dsn2}
	exporterAddr := startExporter(t, dir, exporterBin, dev, dsns)
	nodeAddr := startNodeExporter(t, dir)
	loadgenAddr := ""
	if haveLoadgen {
		loadgenAddr = startLoadgen(t, dir, loadgenBin, dsns)
	} else {
		t.Log("NOTE: ./loadgen does not exist yet; load panels are not checked for data")
	}

	// Alertmanager with a webhook receiver owned by the test.
	hook := newWebhook()
	hookSrv := httptest.NewServer(hook)
	t.Cleanup(hookSrv.Close)
	amAddr := addr(testenv.FreePort(t))
	writeFile(t, dir, "alertmanager.yml", fmt.Sprintf(`route:
  receiver: test
  group_by: [alertname, device]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: test
    webhook_configs:
      - url: %s
        send_resolved: false
`, hookSrv.URL))
	am := start(t, dir, "alertmanager", amBin,
		"--config.file=alertmanager.yml", "--storage.path=am-data",
		"--web.listen-address="+amAddr, "--cluster.listen-address=")
	waitHTTP(t, am, "http://"+amAddr+"/-/ready", 30*time.Second)

	// Prometheus with the rules generated for a 20 s "hour".
	writeE2ERules(t, dir)
	promAddr := addr(testenv.FreePort(t))
	scrape := fmt.Sprintf(`  - job_name: walab-exporter
    static_configs: [{targets: [%q]}]
`, exporterAddr)
	if loadgenAddr != "" {
		scrape += fmt.Sprintf(`  - job_name: walab-loadgen
    static_configs: [{targets: [%q]}]
`, loadgenAddr)
	}
	if nodeAddr != "" {
		scrape += fmt.Sprintf(`  - job_name: node
    static_configs: [{targets: [%q]}]
`, nodeAddr)
	}
	writeFile(t, dir, "prometheus.yml", fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: [rules.yml]
alerting:
  alertmanagers:
    - static_configs: [{targets: [%q]}]
scrape_configs:
%s`, amAddr, scrape))
	prom := start(t, dir, "prometheus", promBin,
		"--config.file=prometheus.yml", "--storage.tsdb.path=prom-data",
		"--web.listen-address="+promAddr, "--storage.tsdb.retention.time=1h")
	waitHTTP(t, prom, "http://"+promAddr+"/-/ready", 60*time.Second)
	client, err := api.NewClient(api.Config{Address: "http://" + promAddr})
	require.NoError(t, err)
	papi := v1.NewAPI(client)

	// 1. The recording rules produce hourly WA for the device, at 1.5.
	waQuery := fmt.Sprintf(`%s{device=%q}`, alerts.WA1h, deviceName)
	eventually(t, 60*time.Second, "hourly WA series", func() string {
		v, err := instant(papi, waQuery)
		if err != nil {
			return err.Error()
		}
		if len(v) != 1 {
			return fmt.Sprintf("%d series", len(v))
		}
		if wa := float64(v[0].Value); wa < 1.4 || wa > 1.6 {
			return fmt.Sprintf("WA %v, want 1.5", wa)
		}
		return ""
	})
	require.Empty(t, hook.firing("WalabWARegression"), "no regression before the injection")

	// 2. Inject a regression: NAND grows three times as fast as host writes.
	dev.setWA(3)
	eventually(t, 90*time.Second, "WalabWARegression at the webhook", func() string {
		select {
		case err := <-stepErr:
			t.Fatalf("device step: %v", err)
		default:
		}
		if hook.firing("WalabWARegression")[deviceName] {
			return ""
		}
		return fmt.Sprintf("webhook saw %v", hook.names())
	})

	// Alerts this healthy stack must not send (a baseline run expects no placement).
	for _, quiet := range []string{"WalabTargetDown", "WalabMySQLDown", "WalabPlacementDisabled", "WalabPlacementDaemonDown"} {
		require.Empty(t, hook.firing(quiet), "%s reached the webhook", quiet)
	}

	// 3. Every dashboard query parses; the panels this stack feeds have data.
	expect := map[string]bool{
		"walab-wa-overview/Hourly WA":                               true,
		"walab-wa-overview/Hourly WA per device":                    true,
		"walab-wa-overview/NAND vs host bytes per hour":             true,
		"walab-wa-overview/WA over 24h":                             true,
		"walab-wa-overview/NAND counter source":                     true,
		"walab-wa-overview/Bytes written per layer":                 true,
		"walab-run-comparison/Hourly WA: candidate vs baseline":     true,
		"walab-run-comparison/WA reduction vs configured reference": true,
		"walab-device-health/Device up":                             true,
		"walab-device-health/Temperature":                           true,
	}
	if nodeAddr != "" {
		expect["walab-irq-cpu/CPU by mode"] = true
	}
	expect["walab-wa-overview/WA since run start"] = true
	expect["walab-wa-overview/Exporter WA windows"] = true
	expect["walab-device-health/Admin commands sent"] = true
	expect["walab-innodb/MySQL up"] = true
	expect["walab-innodb/Bytes written"] = true
	if loadgenAddr != "" {
		expect["walab-load/tpmC (New-Order per minute)"] = true
		expect["walab-load/Transactions per second by type"] = true
		expect["walab-load/Transaction latency"] = true
		expect["walab-run-comparison/Runs seen"] = true
		expect["walab-wa-overview/NAND bytes per transaction"] = true
	}
	files, err := filepath.Glob("../deploy/grafana/dashboards/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	hasData := map[string]bool{}
	nQueries := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		qs, err := dashboard.Queries(b)
		require.NoError(t, err)
		for _, q := range qs {
			nQueries++
			expr := dashboard.Expand(q.Expr, dashboard.TestVars("10s"))
			v, err := instant(papi, expr)
			require.NoError(t, err, "%s/%s %s: %s", q.Board, q.Panel, q.RefID, expr)
			if len(v) > 0 {
				hasData[q.Board+"/"+q.Panel] = true
			}
		}
	}
	var missing []string
	for k := range expect {
		if !hasData[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	require.Empty(t, missing, "panels without data")
	t.Logf("%d dashboard queries parsed; %d panels returned data; loadgen: %v, node_exporter: %v",
		nQueries, len(hasData), loadgenAddr != "", nodeAddr != "")
}

// startExporter runs ./exporter on the replay folder, with both MySQL
// instances as InnoDB targets.
func startExporter(t *testing.T, dir, bin string, dev *device, dsns []string) string {
	t.Helper()
	// WA sampler: fast, in memory (the default state file is /var/lib/walab).
	writeFile(t, dir, "exporter.yml", fmt.Sprintf(`wa:
  interval: 1s
  windows: [20s]
  persist: false
innodb:
  targets:
    - name: mysql1
      dsn: %q
    - name: mysql2
      dsn: %q
`, dsns[0], dsns[1]))
	a := addr(testenv.FreePort(t))
	p := start(t, dir, "exporter", bin,
		"--web.listen-address="+a,
		"--config.file=exporter.yml",
		"--nvme.replay="+filepath.Dir(dev.dir),
		"--nvme.cache-max-age=500ms") // the test's "hour" is 20 s
	waitHTTP(t, p, "http://"+a+"/metrics", 60*time.Second)
	return a
}

// startLoadgen loads one TPC-C warehouse into each instance, then runs a
// short TPC-C load against both, serving its metrics on loopback.
func startLoadgen(t *testing.T, dir, bin string, dsns []string) string {
	t.Helper()
	targets := []string{"--target=mysql1=" + dsns[0], "--target=mysql2=" + dsns[1]}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	prep := exec.CommandContext(ctx, bin, append([]string{"tpcc", "prepare", "--warehouses=1", "--threads=2", "--web.disable"}, targets...)...)
	prep.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if out, err := prep.CombinedOutput(); err != nil {
		t.Fatalf("loadgen tpcc prepare: %v\n%s", err, tailBytes(out, 2000))
	}
	a := addr(testenv.FreePort(t))
	p := start(t, dir, "loadgen", bin, append([]string{"tpcc", "run", "--terminals=2", "--time=600",
		"--scenario=baseline", "--run-id=e2e", "--web.listen-address=" + a}, targets...)...)
	waitHTTP(t, p, "http://"+a+"/metrics", 60*time.Second)
	return a
}

func tailBytes(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// startNodeExporter runs Debian's node_exporter with the collectors the
// dashboards use, or returns "" when it is not installed (not required).
func startNodeExporter(t *testing.T, dir string) string {
	t.Helper()
	bin := firstBinary("prometheus-node-exporter", "node_exporter")
	if bin == "" {
		t.Log("NOTE: node_exporter not installed; block-layer and CPU panels are not checked for data")
		return ""
	}
	a := addr(testenv.FreePort(t))
	p := start(t, dir, "node_exporter", bin, "--web.listen-address="+a,
		"--collector.disable-defaults", "--collector.cpu", "--collector.diskstats")
	waitHTTP(t, p, "http://"+a+"/metrics", 30*time.Second)
	return a
}

func instant(papi v1.API, expr string) (model.Vector, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, _, _, err := papi.Query(ctx, expr, time.Now())
	if err != nil {
		return nil, err
	}
	switch v := res.(type) {
	case model.Vector:
		return v, nil
	case *model.Scalar:
		return model.Vector{{Value: v.Value}}, nil
	default:
		return nil, fmt.Errorf("unexpected result type %s", res.Type())
	}
}

// webhook records the alerts Alertmanager posts.
type webhook struct {
	mu   sync.Mutex
	seen map[string]map[string]bool // alertname -> device -> firing
}

func newWebhook() *webhook { return &webhook{seen: map[string]map[string]bool{}} }

func (h *webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var msg struct {
		Alerts []struct {
			Status string            `json:"status"`
			Labels map[string]string `json:"labels"`
		} `json:"alerts"`
	}
	if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, a := range msg.Alerts {
		if a.Status != "firing" {
			continue
		}
		n := a.Labels["alertname"]
		if h.seen[n] == nil {
			h.seen[n] = map[string]bool{}
		}
		h.seen[n][a.Labels["device"]] = true
	}
}

func (h *webhook) firing(name string) map[string]bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string]bool{}
	for k, v := range h.seen[name] {
		out[k] = v
	}
	return out
}

func (h *webhook) names() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for n := range h.seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
}

func firstBinary(names ...string) string {
	for _, n := range names {
		if p, err := execLookPath(n); err == nil {
			return p
		}
	}
	return ""
}
