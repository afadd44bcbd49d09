package main

import (
	"log/slog"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/alerts"
	"github.com/walab/walab/internal/blockdev/blockdevtest"
	"github.com/walab/walab/internal/collector"
	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/nvme/fleet"
	"github.com/walab/walab/internal/promql"
	"github.com/walab/walab/internal/runner"
	"github.com/walab/walab/internal/simfs"
	"github.com/walab/walab/internal/testenv"
)

// describer is a Registerer that keeps the name of every series its
// collectors describe, whether or not they have a sample yet.
type describer map[string]bool

var fqName = regexp.MustCompile(`fqName: "([^"]+)"`)

func (d describer) Register(c prometheus.Collector) error {
	ch := make(chan *prometheus.Desc)
	go func() { c.Describe(ch); close(ch) }()
	for desc := range ch {
		if m := fqName.FindStringSubmatch(desc.String()); m != nil {
			d[m[1]] = true
		}
	}
	return nil
}

func (d describer) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		_ = d.Register(c)
	}
}

func (d describer) Unregister(prometheus.Collector) bool { return false }

// notHere are the names this fixture cannot show, and where they are held.
var notHere = map[string]string{
	promql.SimFSDeviceInfo:              "only with sim.fs.device writing an NVMe namespace (test/qemu's TestQEMUFDPFiles reads them)",
	promql.SimFSDeviceWrittenBytes:      "as walab_simfs_device_info (TestQEMUFDPFiles)",
	promql.ExperimentRunInfo:            "walab experiment's own series, built from this name (internal/experiment's metrics_run_test.go)",
	promql.NVMeSourceErrors:             "only once a NAND source has failed (TestNANDSourceFailsMidRun reads it)",
	promql.IRQBusiestCPUShare:           "only for interrupts counted between two scrapes; the fixture's do not move (internal/collector's irq_test.go, testdata/irq/second.prom)",
	promql.NVMeFDPHandles:               "only with the FDP configuration log 0x20, which the ScrapeAll fixture's FDP drive does not serve (internal/collector's TestStreamsGoldenNewKernel, testdata/streams/kernel-6.18.prom)",
	promql.NVMeFDPUnitSize:              "as walab_nvme_fdp_reclaim_unit_handles (TestStreamsGoldenNewKernel)",
	promql.NVMeFDPHandlesUsed:           "only with the reclaim unit handle usage log 0x21 (TestStreamsGoldenNewKernel)",
	promql.BlockdevIOSizeBucket:         "only while the BPF I/O-size tracer runs, which the fixture host (no tracefs) does not (internal/collector's TestIOSizeHistogram from given counts; internal/nvmetrace's TestIOSizeTracerCountsDirectIO on this machine's kernel)",
	promql.NVMeNamespaceWrittenBytes:    "only for a controller with per-namespace SMART and more than one namespace (internal/collector's TestNVMeNamespaceWritten; live: e2e TestSeed000NVMeQEMU)",
	promql.NVMeFDPNamespaceHandleEvents: "only with FDP events that name a namespace and a handle (internal/collector's TestStreamsFDPNamespaceHandles; live: e2e TestSeed000NVMeQEMU)",
	promql.ProfileSamples:               "only while the BPF CPU profiler runs (internal/exporterapp's TestProfileEndpoint scrapes it)",
	promql.ProfileFunctionSamples:       "only with samples of a sampled process, which the fixture's /proc has none of (TestProfileEndpoint)",
}

// TestReadBackNamesAreExposed: every name internal/promql owns (what rules,
// dashboards, walab compare, the experiment's checks and the fingerprint
// read back) is a series the exporter exposes (every collector on the
// replay fixture, as BenchmarkScrapeAll builds it) or loadgen describes;
// and every metric the generated rules read is such a name: a renamed
// metric breaks this test, not a dashboard in production.
func TestReadBackNamesAreExposed(t *testing.T) {
	_, dsn1 := testenv.MariaDB(t, "walab_test_exporter_names")
	h := genAllHost(t)
	a := newAllApp(t, h, dsn1)
	scrapeAll(t, a.Handler()) // the collectors read once, as a scrape does
	mfs, err := a.Registry().Gather()
	require.NoError(t, err)
	exposed := describer{}
	mfs = append(mfs, raidStackMetrics(t)...)
	for _, mf := range mfs {
		exposed[mf.GetName()] = true
	}
	exposed.MustRegister(a.Sampler()) // its WA series need an hour of samples
	runner.NewMetrics(exposed)
	// The FUSE filesystem under the simulated drive (sim.fs) needs a mount;
	// its collector describes the same descriptors it serves.
	exposed.MustRegister((&simfs.FS{}).Collector(""))
	var missing []string
	for _, n := range promql.Names() {
		// walab experiment's own series, built from the promql name in
		// internal/experiment (metrics_run_test.go holds it).
		if why := notHere[n]; why != "" {
			t.Logf("%s: %s", n, why)
			continue
		}
		if !exposed[n] && !exposed[strings.TrimSuffix(n, "_bucket")] { // a histogram's buckets
			missing = append(missing, n)
		}
	}
	require.Empty(t, missing, "promql names neither the exporter nor loadgen exposes")

	cfg, err := alerts.LoadConfig("../alerts/config.yml")
	require.NoError(t, err)
	metric := regexp.MustCompile(`\bwalab_[a-z0-9_]+\b`)
	rule := regexp.MustCompile(`[a-zA-Z_][a-zA-Z0-9_]*:[a-zA-Z0-9_:]+`) // level:metric:operations
	var unowned []string
	for _, g := range alerts.Generate(cfg).Groups {
		for _, r := range g.Rules {
			for _, m := range metric.FindAllString(rule.ReplaceAllString(r.Expr, ""), -1) {
				if !slices.Contains(promql.Names(), m) {
					unowned = append(unowned, m+" ("+r.Record+r.Alert+")")
				}
			}
		}
	}
	sort.Strings(unowned)
	require.Empty(t, slices.Compact(unowned), "metrics the rules read that internal/promql does not own")
}

// raidStackMetrics scrapes every collector over a RAID 5 of three
// measured controllers under a dm device (the block stack ScrapeAll's host
// does not have), one of them a drive that counts its placed writes.
func raidStackMetrics(t *testing.T) []*dto.MetricFamily {
	tr := blockdevtest.New(t)
	for _, c := range []string{"nvme0", "nvme1", "nvme2"} {
		tr.NVMe(c, 1)
	}
	tr.MD("md0", map[string]string{"level": "raid5", "raid_disks": "3", "chunk_size": "524288", "layout": "2",
		"array_state": "clean", "degraded": "0", "sync_action": "idle", "sync_completed": "none"}, "nvme0n1", "nvme1n1", "nvme2n1")
	tr.DM("dm-0", "vg0-mysql", "md0")
	tr.Diskstats(` 259       0 nvme0n1 1200 0 96000 300 74284 0 297136000 148568 1 60000 148868 0 0 0 0 500 40
 259       1 nvme1n1 1180 0 94400 290 74284 0 297136000 150000 0 61000 150290 0 0 0 0 500 41
 259       2 nvme2n1 1190 0 95200 310 74290 0 297140000 149000 0 60500 149310 0 0 0 0 510 39
   9       0 md0 3500 0 280000 0 48915 0 391320000 0 0 0 0 0 0 0 0 0 0
 253       0 dm-0 3500 0 280000 900 48915 0 391320000 250000 2 65000 250900 0 0 0 0 0 0
`)
	f := &fleet.Fleet{}
	for _, n := range []string{"nvme0", "nvme1", "nvme2"} {
		f.Controllers = append(f.Controllers, &fleet.Controller{Name: n, Namespaces: []fleet.Namespace{{NSID: 1, Block: n + "n1"}}})
	}
	cfg, err := config.Parse([]byte("{}"))
	require.NoError(t, err)
	set, err := collector.New(collector.Env{Logger: slog.New(slog.DiscardHandler), Paths: collector.Paths{ProcFS: tr.Proc, SysFS: tr.Sys},
		Config: cfg, Fleet: f, PlacedWriters: map[string]collector.PlacedWriter{"nvme0": placed{}}})
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	reg.MustRegister(set)
	mfs, err := reg.Gather()
	require.NoError(t, err)
	return mfs
}

// placed is a drive that wrote 4 KiB with stream 1.
type placed struct{}

func (placed) PlacedWrites() []collector.PlacedWrite {
	return []collector.PlacedWrite{{Stream: 1, Commands: 1, Bytes: 4096}}
}
