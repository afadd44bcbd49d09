package fleetstack

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/alerts"
	"github.com/walab/walab/internal/fleetsim"
	"github.com/walab/walab/internal/service"
	"github.com/walab/walab/internal/testenv"
)

// start runs a server at niceness 10 for the test on a free loopback port
// (args builds its command line from the address) and returns its base URL
// once GET ready answers 200.
func start(t *testing.T, bin, ready string, args func(addr string) []string) string {
	t.Helper()
	return testenv.Start(t, service.Service{Cmd: service.Cmd{Name: filepath.Base(bin), Bin: "nice"}, Ready: ready,
		Args: func(a string) []string { return append([]string{"-n", "10", bin}, args(a)...) }}).URL()
}

func writeFile(t *testing.T, p string, b []byte) string {
	t.Helper()
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

// rules generates walab's rules from alerts/config.yml with this
// directory's overrides, as alerts/gen does.
func rules(t *testing.T, dir string) string {
	t.Helper()
	prod, err := alerts.LoadConfig("../../alerts/config.yml")
	require.NoError(t, err)
	c, err := alerts.Override(prod, "rules-config.yml")
	require.NoError(t, err)
	b, err := alerts.Generate(c).Marshal()
	require.NoError(t, err)
	return writeFile(t, filepath.Join(dir, "walab.rules.yml"), b)
}

// scrapeConfig scrapes the fleet's hosts every 2 s; instance is the host.
func scrapeConfig(t *testing.T, dir, addr string, hosts int) string {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("global:\n  scrape_interval: 2s\n  scrape_timeout: 2s\nscrape_configs:\n  - job_name: walab-exporter\n    static_configs:\n")
	for h := range hosts {
		fmt.Fprintf(&b, "      - targets: [%q]\n        labels: {__metrics_path__: /hosts/%d/metrics, instance: db%05d}\n", addr, h, h)
	}
	return writeFile(t, filepath.Join(dir, "scrape.yml"), b.Bytes())
}

type stack struct{ vm, am, vmalert string }

// startStack starts VictoriaMetrics, Alertmanager, vmalert and two sharded
// vmagents on loopback, scraping the fleet served at fleetAddr.
func startStack(t *testing.T, fleetAddr string, hosts int) stack {
	bins := map[string]string{}
	for _, b := range []string{"victoria-metrics", "vmagent", "vmalert", "prometheus-alertmanager"} {
		bins[b] = testenv.RequireBinary(t, b)
	}
	dir := t.TempDir()
	var s stack
	s.vm = start(t, bins["victoria-metrics"], "/health", func(a string) []string {
		return []string{"-storageDataPath=" + filepath.Join(dir, "vm"), "-httpListenAddr=" + a,
			"-retentionPeriod=1d", "-search.latencyOffset=1s", "-search.disableCache"}
	})
	amCfg := writeFile(t, filepath.Join(dir, "am.yml"), []byte("route:\n  receiver: none\n  group_wait: 1s\n  group_interval: 1s\nreceivers:\n  - name: none\n"))
	s.am = start(t, bins["prometheus-alertmanager"], "/-/ready", func(a string) []string {
		return []string{"--config.file=" + amCfg, "--storage.path=" + filepath.Join(dir, "am"),
			"--web.listen-address=" + a, "--cluster.listen-address="}
	})
	ruleFile := rules(t, dir)
	s.vmalert = start(t, bins["vmalert"], "/health", func(a string) []string {
		return []string{"-rule=" + ruleFile, "-datasource.url=" + s.vm, "-remoteWrite.url=" + s.vm,
			"-remoteRead.url=" + s.vm, "-notifier.url=" + s.am, "-evaluationInterval=5s", "-httpListenAddr=" + a}
	})
	scrape := scrapeConfig(t, dir, fleetAddr, hosts)
	for i := range 2 {
		start(t, bins["vmagent"], "/health", func(a string) []string {
			return []string{"-promscrape.config=" + scrape, "-remoteWrite.url=" + s.vm + "/api/v1/write",
				"-promscrape.cluster.membersCount=2", fmt.Sprintf("-promscrape.cluster.memberNum=%d", i),
				"-remoteWrite.tmpDataPath=" + filepath.Join(dir, fmt.Sprintf("vmagent%d", i)), "-httpListenAddr=" + a}
		})
	}
	return s
}

// amAlerts is the (instance, device) of every active alert named name in
// Alertmanager.
func amAlerts(t *testing.T, am, name string) []string {
	t.Helper()
	resp, err := http.Get(am + "/api/v2/alerts?filter=alertname%3D%22" + name + "%22")
	require.NoError(t, err)
	defer resp.Body.Close()
	var as []struct {
		Labels map[string]string `json:"labels"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&as))
	var out []string
	for _, a := range as {
		out = append(out, a.Labels["instance"]+" "+a.Labels["device"])
	}
	sort.Strings(out)
	return out
}

// TestFleetStack runs 50 simulated hosts (200 drives, 3 of which regress
// at simulated minute 150) through vmagent x 2 -> VictoriaMetrics ->
// vmalert -> Alertmanager. It waits for WalabWARegressionVsBaseline on
// exactly the regressed drives, finds them at the top of the fleet's WA
// change rule, has walab compare judge a regressed drive's hours before
// and after its regression (and an unchanged drive's) through
// VictoriaMetrics' Prometheus API, and runs the fleet dashboard's queries.
// Under CI=true a missing binary fails it.
func TestFleetStack(t *testing.T) {
	walab := buildWalab(t)
	cfg := fleetsim.Config{Seed: 49, Hosts: 50, DrivesPerHost: 4, Regressed: 3, RegressAt: 150 * time.Minute, RegressFactor: 1.6}
	start := time.Now().Truncate(time.Second)
	f, err := fleetsim.New(cfg, t.TempDir(), start, nil)
	require.NoError(t, err)
	t.Cleanup(f.Close)
	srv := httptest.NewServer(f.Handler()) // 127.0.0.1
	t.Cleanup(srv.Close)
	s := startStack(t, srv.Listener.Addr().String(), cfg.Hosts)
	scraping := time.Now()
	var want []string
	for _, d := range f.Drives() {
		if d.Regressed {
			want = append(want, fmt.Sprintf("db%05d %s", d.Host, d.Name()))
		}
	}
	sort.Strings(want)

	// One simulated minute a wall second, as rules-config.yml assumes:
	// the regression is at start + 150 s of wall time.
	const speed = 60
	regressed := start.Add(cfg.RegressAt / speed)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	const alert = "WalabWARegressionVsBaseline"
	seen := map[string]bool{}
	var topChange []string
	deadline := time.Now().Add(7 * time.Minute)
	for n := 0; time.Now().Before(deadline); n++ {
		now := <-tick.C
		require.NoError(t, f.AdvanceTo(speed*now.Sub(start)))
		if n%5 != 0 {
			continue
		}
		for _, k := range amAlerts(t, s.am, alert) {
			seen[k] = true
		}
		if len(seen) >= len(want) && topChange == nil {
			topChange = drivesOf(t, instantQuery(t, s.vm, fmt.Sprintf("topk(%d, %s)", len(want), alerts.FleetTopWAChange)))
		}
		// 30 s past the last regressed drive's alert, a spurious one
		// (a drive that did not regress) would have fired too; the
		// comparison wants 9 rounds of 10 s after the regression.
		if len(seen) >= len(want) && n%30 == 0 && now.After(regressed.Add(100*time.Second)) {
			break
		}
	}
	end := time.Now()
	var got []string
	for k := range seen {
		got = append(got, k)
	}
	sort.Strings(got)
	require.Equal(t, want, got, "%s fires for exactly the regressed drives", alert)
	require.Equal(t, want, topChange, "the regressed drives top %s", alerts.FleetTopWAChange)
	checkDashboard(t, s.vm)
	checkCompare(t, walab(), s.vm, f.Drives(), cfg.RegressFactor, [2][2]time.Time{
		{scraping.Add(15 * time.Second), regressed}, {regressed.Add(10 * time.Second), end}})
}

// drivesOf is the "instance device" of each series of an instant query's
// result, sorted.
func drivesOf(t *testing.T, res []json.RawMessage) []string {
	t.Helper()
	var out []string
	for _, r := range res {
		var s struct {
			Metric map[string]string `json:"metric"`
		}
		require.NoError(t, json.Unmarshal(r, &s))
		out = append(out, s.Metric["instance"]+" "+s.Metric["device"])
	}
	sort.Strings(out)
	return out
}

// checkDashboard runs every query of the generated fleet dashboard against
// VictoriaMetrics with the model variable at its default (all): each must
// parse and, but for the placement panel (the simulated hosts run no
// streams collector), return data. The panels read the fleet recording
// rules vmalert evaluates.
func checkDashboard(t *testing.T, vm string) {
	t.Helper()
	b, err := os.ReadFile("../../deploy/grafana/dashboards/walab-fleet.json")
	require.NoError(t, err)
	var board struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	require.NoError(t, json.Unmarshal(b, &board))
	r := strings.NewReplacer("$model", ".*", "$__rate_interval", "1m")
	n := 0
	for _, p := range board.Panels {
		for _, q := range p.Targets {
			n++
			res := instantQuery(t, vm, r.Replace(q.Expr))
			if strings.Contains(p.Title, "placement") {
				continue
			}
			require.NotEmpty(t, res, "panel %q: %s", p.Title, q.Expr)
		}
	}
	require.GreaterOrEqual(t, n, 8)
}

// instantQuery runs expr through VictoriaMetrics' Prometheus API and
// returns the series of the result; a query error fails the test.
func instantQuery(t *testing.T, vm, expr string) []json.RawMessage {
	t.Helper()
	resp, err := http.PostForm(vm+"/api/v1/query", url.Values{"query": {expr}})
	require.NoError(t, err)
	defer resp.Body.Close()
	var out struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []json.RawMessage `json:"result"`
		} `json:"data"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	require.Equal(t, "success", out.Status, "%s: %s", expr, out.Error)
	return out.Data.Result
}
