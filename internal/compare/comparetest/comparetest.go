// Package comparetest serves synthetic loadgen runs from a real Prometheus
// for tests: the runs are written as OpenMetrics, backfilled into a TSDB
// with promtool, and served by a prometheus process on loopback.
package comparetest

import (
	"bytes"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/compare"
	"github.com/walab/walab/internal/service"
	"github.com/walab/walab/internal/testenv"

	"github.com/walab/walab/internal/promql"
)

// Run is a synthetic run: WA per hour (0 = idle hour).
type Run struct {
	ID, Scenario string
	Start        time.Time
	WA           []float64
	// NoNAND lists hours (1-based, as in the table) whose NAND samples are
	// absent, as when the drive's NAND source fails: the drive keeps
	// writing, the host counter keeps its samples.
	NoNAND []int
	// BadNAND and BadHost give hours (1-based) whose last counter sample
	// reads this value (+Inf, NaN), as from a broken exporter or store;
	// the counter goes on from its true value after it.
	BadNAND, BadHost map[int]float64
	// Instance, when set, labels the drive's counters instance=Instance:
	// a second run on another host at the same time has the same device
	// name.
	Instance string
	// Array, when set, makes the run one on md0, RAID 5 (2+1) over
	// nvme0n1..nvme2n1 of controllers nvme0..nvme2, and WA the chain's
	// (NAND of the three drives per array byte).
	Array *Array
	// Placed, when set, adds the placement tracer's counts of a device run:
	// this share of the host bytes carried placement handle 5.
	Placed *float64
	// Settings are MySQL variables of target mysql1 during the run.
	Settings map[string]float64
	// Block adds nvme0n1, nvme0's namespace, with 10 writes/s of 1 ms and
	// 50% utilisation; SyncHours put it under md0 with a resync then.
	Block     bool
	SyncHours []int
	// TxnPerMin adds loadgen's committed New-Orders: this many a minute
	// while the run writes, each 10-20 ms long, or 20-40 ms for the share
	// SlowShare of them.
	TxnPerMin, SlowShare float64
	// TxnScale gives hours (1-based) whose transaction rate is this share
	// of TxnPerMin, as in a warm-up after a restore.
	TxnScale map[int]float64
	// ServerCommitsPerMin adds the COMMITs server mysql1 executed
	// (walab_mysql_commands_total), as under a client walab does not
	// instrument: this many a minute while the run writes.
	ServerCommitsPerMin float64
	// Terminals, when > 0, adds loadgen's offered load on target mysql1:
	// this many terminals, and RateLimit transactions/s (0: unlimited).
	Terminals, RateLimit float64
}

// Array is an md0 run's RAID layer.
type Array struct {
	RAIDWA    float64 // member bytes per array byte
	SyncHours []int   // hours (1-based) during which a resync runs
	// Await, when set, adds block reads and writes to md0 and its members.
	Await *ArrayAwait
}

// ArrayAwait is the average time per request (seconds) of md0 ([0]) and
// nvme0n1..nvme2n1 ([1..3]), with 100 reads and 100 writes a minute each;
// a device whose figure is 0 has no counter of that kind (no figure).
type ArrayAwait struct {
	Read, Write [4]float64
}

// series accumulates OpenMetrics samples, grouped per family and series as
// promtool's backfill wants them.
type series struct {
	families []string
	byFamily map[string][]string // family -> its series in order
	types    map[string]string   // family -> OpenMetrics type
	lines    map[string]*bytes.Buffer
	value    map[string]float64
}

func newSeries() *series {
	return &series{byFamily: map[string][]string{}, types: map[string]string{}, lines: map[string]*bytes.Buffer{}, value: map[string]float64{}}
}

// add appends a sample of family{labels}: a counter grows by inc, a gauge
// (set) takes inc as its value.
func (s *series) add(family, labels string, inc float64, set bool, ts int64) {
	key := family + "{" + labels + "}"
	if _, ok := s.lines[key]; !ok {
		if _, ok := s.byFamily[family]; !ok {
			s.families = append(s.families, family)
		}
		s.byFamily[family] = append(s.byFamily[family], key)
		s.lines[key] = &bytes.Buffer{}
	}
	if set {
		s.value[key] = inc
	} else {
		s.value[key] += inc
	}
	fmt.Fprintf(s.lines[key], "%s %g %d\n", key, s.value[key], ts)
}

func (s *series) counter(f, l string, inc float64, ts int64) {
	s.types[f] = "counter"
	s.add(f, l, inc, false, ts)
}

func (s *series) gauge(f, l string, v float64, ts int64) {
	s.types[f] = "gauge"
	s.add(f, l, v, true, ts)
}

func (s *series) untyped(f, l string, inc float64, ts int64) {
	s.types[f] = "unknown"
	s.add(f, l, inc, false, ts)
}

// bad replaces the sample add just wrote for family{labels} with v,
// leaving the series' running value as it was.
func (s *series) bad(family, labels string, v float64, ts int64) {
	b := s.lines[family+"{"+labels+"}"]
	lines := bytes.Split(bytes.TrimSuffix(b.Bytes(), []byte("\n")), []byte("\n"))
	b.Truncate(b.Len() - len(lines[len(lines)-1]) - 1)
	fmt.Fprintf(b, "%s{%s} %g %d\n", family, labels, v, ts)
}

func (s *series) bytes() []byte {
	var out bytes.Buffer
	for _, f := range s.families {
		name, typ := f, s.types[f]
		if typ == "counter" {
			name = strings.TrimSuffix(f, "_total")
		}
		fmt.Fprintf(&out, "# TYPE %s %s\n", name, typ)
		for _, k := range s.byFamily[f] {
			out.Write(s.lines[k].Bytes())
		}
	}
	out.WriteString("# EOF\n")
	return out.Bytes()
}

// minute is one sample time of a run: its minute m from the start, the
// table's hour (1-based) it counts in, and the bytes the host and the NAND
// wrote in the minute before it.
type minute struct {
	r          *Run
	m, hour    int
	ts         int64
	host, nand float64
	nandUp     bool // the NAND counter has a sample (not in NoNAND)
}

// OpenMetrics writes per-minute counters and run_info for the runs, in the
// format `promtool tsdb create-blocks-from openmetrics` backfills.
func OpenMetrics(runs []Run) []byte {
	s := newSeries()
	for i := range runs {
		r := &runs[i]
		for m := 0; m <= 60*len(r.WA); m++ {
			mn := minute{r: r, m: m, hour: (m-1)/60 + 1, ts: r.Start.Add(time.Duration(m) * time.Minute).Unix()}
			if m > 0 {
				if wa := r.WA[mn.hour-1]; wa > 0 {
					mn.host, mn.nand = compare.MiB, wa*compare.MiB
				}
			}
			mn.nandUp = m == 0 || !slices.Contains(r.NoNAND, mn.hour)
			if r.Array == nil {
				s.drive(mn)
			} else {
				s.array(mn)
			}
			s.loadgen(mn)
			s.mysql(mn)
			if r.Block {
				s.block(mn)
			}
		}
	}
	return s.bytes()
}

// drive is one NVMe drive's counters (nvme0), with the placement tracer's
// counts and the broken samples the run asks for.
func (s *series) drive(mn minute) {
	r, ts := mn.r, mn.ts
	dl := `device="nvme0",source="ocp_c0"`
	if r.Instance != "" {
		dl = fmt.Sprintf("instance=%q,%s", r.Instance, dl)
	}
	s.counter(promql.NVMeHostWrittenBytes, dl, mn.host, ts)
	if v, ok := r.BadHost[mn.hour]; ok && mn.m == 60*mn.hour {
		s.bad(promql.NVMeHostWrittenBytes, dl, v, ts)
	}
	if r.Placed != nil {
		s.counter(promql.NVMeWriteBytes, `device="nvme0",directive="data_placement",placement_id="5"`, mn.host**r.Placed, ts)
		s.counter(promql.NVMeWriteBytes, `device="nvme0",directive="none",placement_id="none"`, mn.host*(1-*r.Placed), ts)
	}
	if mn.nandUp {
		s.counter(promql.NVMeMediaWrittenBytes, dl, mn.nand, ts)
		if v, ok := r.BadNAND[mn.hour]; ok && mn.m == 60*mn.hour {
			s.bad(promql.NVMeMediaWrittenBytes, dl, v, ts)
		}
	}
}

// array is md0's chain: RAID 5 (2+1) over nvme0n1..nvme2n1 of controllers
// nvme0..nvme2, with its theory and resyncs.
func (s *series) array(mn minute) {
	r, ts := mn.r, mn.ts
	s.counter(promql.BlockdevWrittenBytes, `device="md0"`, mn.host, ts)
	for _, c := range []string{"nvme0", "nvme1", "nvme2"} {
		member := mn.host * r.Array.RAIDWA / 3
		s.counter(promql.BlockdevWrittenBytes, fmt.Sprintf("device=%q", c+"n1"), member, ts)
		s.counter(promql.NVMeHostWrittenBytes, fmt.Sprintf(`device=%q,source="ocp_c0"`, c), member, ts)
		if mn.nandUp {
			s.counter(promql.NVMeMediaWrittenBytes, fmt.Sprintf(`device=%q,source="ocp_c0"`, c), mn.nand/3, ts)
		}
		s.gauge(promql.BlockdevMemberInfo, fmt.Sprintf(`array="md0",device=%q`, c+"n1"), 1, ts)
		s.gauge(promql.BlockdevLeafInfo, fmt.Sprintf(`array="md0",controller=%q,device=%q`, c, c+"n1"), 1, ts)
	}
	s.gauge(promql.MDTheoreticalWA, `device="md0"`, 1.5, ts)
	if r.Array.Await != nil {
		s.await(mn, *r.Array.Await)
	}
	s.syncActive(mn.m > 0 && slices.Contains(r.Array.SyncHours, mn.hour), "resync", ts)
}

// await is md0's and its members' block reads and writes: 100 of each a
// minute per device, each taking the device's average.
func (s *series) await(mn minute, a ArrayAwait) {
	n := 0.0
	if mn.m > 0 {
		n = 100
	}
	for i, dev := range []string{"md0", "nvme0n1", "nvme1n1", "nvme2n1"} {
		l := fmt.Sprintf("device=%q", dev)
		if a.Read[i] > 0 {
			s.counter(promql.BlockdevReadsCompleted, l, n, mn.ts)
			s.counter(promql.BlockdevReadTime, l, n*a.Read[i], mn.ts)
		}
		if a.Write[i] > 0 {
			s.counter(promql.BlockdevWritesCompleted, l, n, mn.ts)
			s.counter(promql.BlockdevWriteTime, l, n*a.Write[i], mn.ts)
		}
	}
}

// syncActive is md0's sync state: action busy, or idle.
func (s *series) syncActive(on bool, action string, ts int64) {
	if on {
		s.gauge(promql.MDSyncActive, fmt.Sprintf(`action=%q,device="md0"`, action), 1, ts)
	} else {
		s.gauge(promql.MDSyncActive, `action="idle",device="md0"`, 0, ts)
	}
}

// loadgen is loadgen's run_info, committed New-Orders with their latency
// histogram, and its offered load.
func (s *series) loadgen(mn minute) {
	r, ts := mn.r, mn.ts
	s.gauge(promql.LoadgenRunInfo, fmt.Sprintf(`run_id=%q,scenario=%q,target="mysql1",workload="tpcc"`, r.ID, r.Scenario), 1, ts)
	if r.TxnPerMin > 0 {
		inc := 0.0
		if mn.host > 0 {
			inc = r.TxnPerMin
			if k, ok := r.TxnScale[mn.hour]; ok {
				inc *= k
			}
		}
		s.counter(promql.LoadgenTransactions, `outcome="committed",target="mysql1",type="new_order",workload="tpcc"`, inc, ts)
		// Every transaction takes 10-20 ms: p95 19.5 ms, p99 19.9 ms
		// by histogram_quantile's interpolation; with half of them
		// 20-40 ms, 38.0 and 39.6 ms.
		fast := inc * (1 - r.SlowShare)
		for _, b := range []struct {
			le  string
			inc float64
		}{{"0.01", 0}, {"0.02", fast}, {"0.04", inc}, {"+Inf", inc}} {
			s.untyped(promql.LoadgenTxnDurationBucket,
				fmt.Sprintf(`le=%q,target="mysql1",type="new_order",workload="tpcc"`, b.le), b.inc, ts)
		}
	}
	if r.Terminals > 0 {
		s.gauge(promql.LoadgenActiveTerminals, `target="mysql1"`, r.Terminals, ts)
		s.gauge(promql.LoadgenTargetRate, `target="mysql1"`, r.RateLimit, ts)
	}
}

// mysql is server mysql1's COMMITs and variables.
func (s *series) mysql(mn minute) {
	r, ts := mn.r, mn.ts
	if r.ServerCommitsPerMin > 0 {
		inc := 0.0
		if mn.host > 0 {
			inc = r.ServerCommitsPerMin
		}
		s.counter(promql.MySQLCommands, `command="commit",target="mysql1"`, inc, ts)
	}
	for _, name := range slices.Sorted(maps.Keys(r.Settings)) {
		s.gauge(promql.MySQLSetting, fmt.Sprintf(`name=%q,target="mysql1"`, name), r.Settings[name], ts)
	}
}

// block is nvme0n1's block-layer counters, under md0 with SyncHours.
func (s *series) block(mn minute) {
	r, ts := mn.r, mn.ts
	s.gauge(promql.BlockdevInfo, `controller="nvme0",device="nvme0n1",dm_name="",kind="nvme",parent=""`, 1, ts)
	inc := 0.0
	if mn.m > 0 {
		inc = 1
	}
	s.counter(promql.BlockdevWritesCompleted, `device="nvme0n1"`, 600*inc, ts)
	s.counter(promql.BlockdevWrittenBytes, `device="nvme0n1"`, mn.host, ts)
	s.counter(promql.BlockdevWriteTime, `device="nvme0n1"`, 0.6*inc, ts)
	s.counter(promql.BlockdevIOTime, `device="nvme0n1"`, 30*inc, ts)
	if len(r.SyncHours) > 0 {
		s.gauge(promql.BlockdevLeafInfo, `array="md0",controller="nvme0",device="nvme0n1"`, 1, ts)
		s.syncActive(mn.m > 0 && slices.Contains(r.SyncHours, mn.hour), "check", ts)
	}
}

// StartPrometheus backfills the runs into a TSDB and serves it on loopback.
func StartPrometheus(t testing.TB, runs []Run) v1.API {
	t.Helper()
	c, err := api.NewClient(api.Config{Address: StartPrometheusURL(t, runs)})
	require.NoError(t, err)
	return v1.NewAPI(c)
}

// StartPrometheusURL is StartPrometheus returning the server's base URL.
func StartPrometheusURL(t testing.TB, runs []Run) string {
	t.Helper()
	promtool := testenv.RequireBinary(t, "promtool")
	prom := testenv.RequireBinary(t, "prometheus")
	dir := t.TempDir()
	om := filepath.Join(dir, "data.om")
	require.NoError(t, os.WriteFile(om, OpenMetrics(runs), 0o644))
	tsdb := filepath.Join(dir, "tsdb")
	out, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", om, tsdb).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte("global: {}\n"), 0o644))
	return serve(t, prom, "/-/ready", func(a string) []string {
		return []string{"--config.file=" + filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path=" + tsdb,
			"--storage.tsdb.retention.time=30d", "--web.listen-address=" + a}
	})
}

// serve starts a server for the test on a free loopback port (args
// builds its command line from the address) and returns its base URL once
// GET ready answers 200.
func serve(t testing.TB, bin, ready string, args func(addr string) []string) string {
	t.Helper()
	return testenv.Start(t, service.Service{Cmd: service.Cmd{Name: filepath.Base(bin), Bin: bin}, Args: args, Ready: ready}).URL()
}

// RepeatWA is n hours at the same WA.
func RepeatWA(wa float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = wa
	}
	return out
}

// StartVictoriaMetricsURL imports the runs into a VictoriaMetrics
// single-node server (the `victoria-metrics` binary, built from its Go
// module by scripts/setup.sh) on loopback and returns its base URL: the
// same verdict must come out of a Prometheus-API store that scales out.
func StartVictoriaMetricsURL(t testing.TB, runs []Run) string {
	t.Helper()
	bin := testenv.RequireBinary(t, "victoria-metrics")
	dir := t.TempDir()
	base := serve(t, bin, "/health", func(a string) []string {
		return []string{"-storageDataPath=" + filepath.Join(dir, "data"), "-httpListenAddr=" + a,
			"-retentionPeriod=100y", "-search.latencyOffset=0s", "-search.disableCache"}
	})
	// The Prometheus text import takes millisecond timestamps; OpenMetrics
	// has seconds.
	var body bytes.Buffer
	for _, line := range strings.Split(string(OpenMetrics(runs)), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		fmt.Fprintf(&body, "%s %s000\n", line[:i], line[i+1:])
	}
	resp, err := http.Post(base+"/api/v1/import/prometheus", "text/plain", &body)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNoContent, resp.StatusCode, "victoria-metrics import")
	resp, err = http.Get(base + "/internal/force_flush")
	require.NoError(t, err)
	resp.Body.Close()
	return base
}
