package fleetstack

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/alerts"
	"github.com/walab/walab/internal/fleetsim"
	fstack "github.com/walab/walab/internal/fleetstack"
	"github.com/walab/walab/internal/promql"
	"github.com/walab/walab/internal/testenv"
)

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

// requirePrograms fails (CI=true) or skips the test without one of the
// stack's programs for es.
func requirePrograms(t *testing.T, es ...fstack.Engine) {
	t.Helper()
	for _, b := range fstack.Programs(es) {
		testenv.RequireBinary(t, b)
	}
}

// startStack starts the fleet stack (internal/fleetstack) with a store
// of each engine, two sharded vmagents scraping the fleet served at
// fleetAddr into every store; it is stopped when the test ends.
func startStack(t *testing.T, fleetAddr string, hosts int, es []fstack.Engine) *fstack.Stack {
	dir := t.TempDir()
	s, err := fstack.Start(context.Background(), fstack.Config{Dir: dir, Scrape: scrapeConfig(t, dir, fleetAddr, hosts),
		Rules: rules(t, dir), Engines: es, Nice: 10})
	require.NoError(t, err)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the stack's logs:\n%s", s.Tails(2000))
		}
		s.Stop()
	})
	return s
}

// amAlerts is the (instance, device) of every active alert named name in
// Alertmanager last sent to it after since (zero: any).
func amAlerts(t *testing.T, am, name string, since time.Time) []string {
	t.Helper()
	resp, err := http.Get(am + "/api/v2/alerts?filter=alertname%3D%22" + name + "%22")
	require.NoError(t, err)
	defer resp.Body.Close()
	var as []struct {
		Labels    map[string]string `json:"labels"`
		UpdatedAt time.Time         `json:"updatedAt"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&as))
	var out []string
	for _, a := range as {
		if a.UpdatedAt.Before(since) {
			continue
		}
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
	requirePrograms(t, fstack.SingleNode)
	r := runFleet(t, nil, fstack.SingleNode)
	checkCompare(t, walab(), r.stack.Store(fstack.SingleNode).Query, r.drives, r.factor, r.runs)
}

// TestFleetStackThanosReceiverLoss runs the same fleet through the same
// two vmagents into two stores side by side: VictoriaMetrics single node,
// and Thanos (three receivers in a hashring with replication factor 3, a
// querier deduplicating on the replica label), each with vmalert and
// Alertmanager. 30 s before the regression receiver 2 is killed with -9,
// and started again 40 s later (no client writes to it directly, as
// behind a load balancer that routes around a dead receiver: the others'
// replication writes to it). Each store alerts on exactly the regressed
// drives, tops the WA change rule with them and answers the dashboard;
// Thanos' querier answers every sample of the regressed drives' hosts
// that VictoriaMetrics holds, and walab compare's verdicts through it are
// VictoriaMetrics'. Under CI=true a missing binary (thanos too) fails it.
func TestFleetStackThanosReceiverLoss(t *testing.T) {
	walab := buildWalab(t)
	requirePrograms(t, fstack.SingleNode, fstack.Thanos)
	r := runFleet(t, loseReceiver, fstack.SingleNode, fstack.Thanos)
	vm, th := r.stack.Store(fstack.SingleNode).Query, r.stack.Store(fstack.Thanos).Query
	checkSamples(t, vm, th, r.regressed, r.scraping.Add(10*time.Second), r.end.Add(-10*time.Second))
	bin := walab()
	sameVerdicts(t, compareVerdicts(t, bin, vm, r.drives, r.runs), compareVerdicts(t, bin, th, r.drives, r.runs))
}

// fleetRun is a fleet run through the stack: its drives, the regressed
// ones ("instance device"), their regression's factor, when scraping
// began and the run ended, and the hours before and after the regression.
type fleetRun struct {
	stack         *fstack.Stack
	drives        []fleetsim.Drive
	regressed     []string
	factor        float64
	scraping, end time.Time
	runs          [2][2]time.Time
}

// loss is the events of a part of the stack's loss during a run whose
// drives regress at regressed; finished waits for what they left running
// and checks it.
type loss func(t *testing.T, s *fstack.Stack, regressed time.Time) (events []event, finished func())

// runFleet runs the simulated fleet through a stack with a store of each
// engine, losing what lose (nil: nothing) takes away mid-run, until every
// store has alerted, and checks in each store the alerts, the top of the
// WA change rule and the dashboard.
func runFleet(t *testing.T, lose loss, es ...fstack.Engine) fleetRun {
	cfg := fleetsim.Config{Seed: 49, Hosts: 50, DrivesPerHost: 4, Regressed: 3, RegressAt: 150 * time.Minute, RegressFactor: 1.6}
	start := time.Now().Truncate(time.Second)
	f, err := fleetsim.New(cfg, t.TempDir(), start, nil)
	require.NoError(t, err)
	t.Cleanup(f.Close)
	srv := httptest.NewServer(f.Handler()) // 127.0.0.1
	t.Cleanup(srv.Close)
	r := fleetRun{stack: startStack(t, srv.Listener.Addr().String(), cfg.Hosts, es), drives: f.Drives(), factor: cfg.RegressFactor}
	r.scraping = time.Now()
	for _, d := range r.drives {
		if d.Regressed {
			r.regressed = append(r.regressed, fmt.Sprintf("db%05d %s", d.Host, d.Name()))
		}
	}
	sort.Strings(r.regressed)

	// One simulated minute a wall second, as rules-config.yml assumes:
	// the regression is at start + 150 s of wall time.
	const speed = 60
	regressed := start.Add(cfg.RegressAt / speed)
	events, finished := []event(nil), func() {}
	if lose != nil {
		events, finished = lose(t, r.stack, regressed)
	}
	seen := watch(t, r.stack, f, start, speed, regressed, len(r.regressed), events)
	r.end = time.Now()
	finished()
	for _, st := range r.stack.Stores {
		require.Equal(t, r.regressed, seen[st.Engine].alerts, "%s: %s fires for exactly the regressed drives", st.Engine, alertName)
		require.Equal(t, r.regressed, seen[st.Engine].topChange, "%s: the regressed drives top %s", st.Engine, alerts.FleetTopWAChange)
		checkDashboard(t, st.Query)
	}
	r.runs = [2][2]time.Time{{r.scraping.Add(15 * time.Second), regressed}, {regressed.Add(10 * time.Second), r.end}}
	return r
}

const alertName = "WalabWARegressionVsBaseline"

// seen is what a store showed: the drives alertName fired for, and the
// top of the fleet's WA change once they all had.
type seen struct{ alerts, topChange []string }

// watch advances the fleet's clock every second until every store has
// alerted on n drives and 100 s have passed since the regression (30 s
// past the last regressed drive's alert, a spurious one would have fired
// too; the comparison wants 9 rounds of 10 s after the regression); at
// each tick it calls each of events that is due. After an event that
// brings a store's alerts back, the store's alerts and top WA change are
// those of the alerts Alertmanager received after it.
func watch(t *testing.T, s *fstack.Stack, f *fleetsim.Fleet, start time.Time, speed int, regressed time.Time, n int, events []event) map[fstack.Engine]*seen {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	out := map[fstack.Engine]*seen{}
	sets, since := map[fstack.Engine]map[string]bool{}, map[fstack.Engine]time.Time{}
	for _, st := range s.Stores {
		out[st.Engine], sets[st.Engine] = &seen{}, map[string]bool{}
	}
	deadline := time.Now().Add(8 * time.Minute)
	for i := 0; time.Now().Before(deadline); i++ {
		now := <-tick.C
		require.NoError(t, f.AdvanceTo(time.Duration(speed)*now.Sub(start)))
		for j := range events {
			if e := &events[j]; !e.done && e.due(now, out) {
				e.done = true
				e.do()
				if e.again != "" {
					out[e.again], sets[e.again], since[e.again] = &seen{}, map[string]bool{}, now
				}
			}
		}
		if i%5 != 0 {
			continue
		}
		all := true
		for _, st := range s.Stores {
			set, o := sets[st.Engine], out[st.Engine]
			for _, k := range amAlerts(t, st.Alertmanager, alertName, since[st.Engine]) {
				set[k] = true
			}
			if len(set) >= n && o.topChange == nil {
				o.topChange = drivesOf(t, instantQuery(t, st.Query, fmt.Sprintf("topk(%d, %s)", n, alerts.FleetTopWAChange)))
			}
			all = all && len(set) >= n
		}
		if all && i%30 == 0 && now.After(regressed.Add(100*time.Second)) && eventsDone(events) {
			break
		}
	}
	for e, set := range sets {
		for k := range set {
			out[e].alerts = append(out[e].alerts, k)
		}
		sort.Strings(out[e].alerts)
	}
	return out
}

// event is something the test does at a time of the run (or once when,
// if not nil, is true of what the stores have shown); again is the store
// whose alerts it brings back.
type event struct {
	at    time.Time
	when  func(map[fstack.Engine]*seen) bool
	do    func()
	again fstack.Engine
	done  bool
}

func (e *event) due(now time.Time, shown map[fstack.Engine]*seen) bool {
	if e.when != nil {
		return e.when(shown)
	}
	return now.After(e.at)
}

// loseReceiver is the events of a Thanos receiver's loss: kill -9 of
// receiver 2 (the vmagents write to 0 and 1) 30 s before the regression, and
// its restart 40 s later (in the background: the clock goes on); restarted
// waits for the restart and fails the test if the receiver did not come
// back.
func loseReceiver(t *testing.T, s *fstack.Stack, regressed time.Time) (events []event, restarted func()) {
	th := s.Store(fstack.Thanos)
	if th == nil {
		return nil, func() {}
	}
	done := make(chan error, 1)
	return []event{
			{at: regressed.Add(-30 * time.Second), do: func() { th.KillReceiver(2); t.Log("killed thanos-receive2 (kill -9)") }},
			{at: regressed.Add(10 * time.Second), do: func() {
				go func() { done <- s.RestartReceiver(context.Background(), th, 2) }()
			}},
		}, func() {
			require.NoError(t, <-done, "thanos-receive2's restart")
		}
}

func eventsDone(es []event) bool {
	for _, e := range es {
		if !e.done {
			return false
		}
	}
	return true
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

// instantQuery runs expr through a store's Prometheus API and returns the
// series of the result; a query error fails the test.
func instantQuery(t *testing.T, api, expr string) []json.RawMessage {
	t.Helper()
	return instantQueryAt(t, api, expr, time.Time{})
}

// instantQueryAt is instantQuery at time at (zero: now).
func instantQueryAt(t *testing.T, api, expr string, at time.Time) []json.RawMessage {
	t.Helper()
	v := url.Values{"query": {expr}}
	if !at.IsZero() {
		v.Set("time", strconv.FormatInt(at.Unix(), 10))
	}
	resp, err := http.PostForm(api+"/api/v1/query", v)
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

// checkSamples: every sample of the NAND and host byte counters of the
// regressed drives' hosts between from and to that VictoriaMetrics holds,
// Thanos' querier answers too, at its time and with its value, and no
// other. The values agree to 1e-12 of their size: VictoriaMetrics stores a
// float as a decimal of at most 15 or so digits (a counter of 4e15 bytes
// comes back 0.5 off).
func checkSamples(t *testing.T, vm, thanos string, drives []string, from, to time.Time) {
	t.Helper()
	for _, d := range drives {
		host := strings.Fields(d)[0]
		expr := fmt.Sprintf(`{__name__=~"%s|%s", instance=%q}[%ds]`, promql.NVMeHostWrittenBytes, promql.NVMeMediaWrittenBytes, host, int(to.Sub(from).Seconds()))
		want, got := rawSamples(t, vm, expr, to), rawSamples(t, thanos, expr, to)
		require.NotEmpty(t, want, expr)
		n := 0
		for k, w := range want {
			g := got[k]
			require.Equal(t, w.times, g.times, "%s: the samples' times of %s", host, k)
			for i := range w.values {
				require.InEpsilon(t, w.values[i], g.values[i], 1e-12, "%s: %s at %d ms", host, k, w.times[i])
			}
			n += len(w.times)
		}
		require.Len(t, got, len(want), "%s: the same series", host)
		t.Logf("%s: Thanos' querier answers all %d samples of %d series VictoriaMetrics holds", host, n, len(want))
	}
}

// samples is a series' samples: their times (Unix milliseconds) and
// values.
type samples struct {
	times  []int64
	values []float64
}

// rawSamples is the samples of each series of a range selector at time
// at, the series named by their labels but Thanos' tenant.
func rawSamples(t *testing.T, api, expr string, at time.Time) map[string]samples {
	t.Helper()
	out := map[string]samples{}
	for _, r := range instantQueryAt(t, api, expr, at) {
		var s struct {
			Metric map[string]string    `json:"metric"`
			Values [][2]json.RawMessage `json:"values"`
		}
		require.NoError(t, json.Unmarshal(r, &s))
		delete(s.Metric, "tenant_id")
		var ss samples
		for _, v := range s.Values {
			var at float64
			var text string
			require.NoError(t, json.Unmarshal(v[0], &at))
			require.NoError(t, json.Unmarshal(v[1], &text))
			f, err := strconv.ParseFloat(text, 64)
			require.NoError(t, err)
			ss.times, ss.values = append(ss.times, int64(math.Round(at*1000))), append(ss.values, f)
		}
		k, err := json.Marshal(s.Metric)
		require.NoError(t, err)
		out[string(k)] = ss
	}
	return out
}
