package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/collector"
	"github.com/walab/walab/internal/exporterapp"
	"github.com/walab/walab/internal/nvme/replay/fixture"
	"github.com/walab/walab/internal/testenv"
	"github.com/walab/walab/internal/writehint"
)

// The whole-exporter worst case of internal/collector/doc_bench.go: a 256-CPU host
// on two NUMA nodes with 2,000 interrupt lines, 24 NVMe controllers with
// 33 queues each (nvmeXq0..32) plus a 64-vector NIC as lines of interest.
const (
	allCPUs      = 256
	allIRQLines  = 2000
	allDevices   = 24
	allQueues    = 33
	allNICQueues = 64
	allSoftTypes = 10
	allFSPaths   = 2
)

var allSoftirqTypes = []string{"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU"}

// allDriveKinds cycles over every NAND source, as BenchmarkScrape24Devices does.
var allDriveKinds = []func() fixture.Drive{fixture.FDPDrive, fixture.OCPDrive, fixture.Seed000Drive, fixture.EnduranceDrive, fixture.SMARTOnlyDrive}

// allHost is the generated fixture tree.
type allHost struct {
	root, proc, sys, replay string
	dataDir                 string   // walked by the streams collector
	fsPaths                 []string // statfs'd by the filesystem collector
	linesOfInterest         int
}

func writeFile(tb testing.TB, p, content string) {
	tb.Helper()
	require.NoError(tb, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(tb, os.WriteFile(p, []byte(content), 0o644))
}

// genAllHost writes the procfs/sysfs fixture, the replay fleet and the
// directories the streams and filesystem collectors look at. The formats are
// those of internal/collector's genIRQFixture (which lives in a _test.go of
// another package, so it cannot be imported).
func genAllHost(tb testing.TB) *allHost {
	tb.Helper()
	root := tb.TempDir()
	h := &allHost{root: root, proc: filepath.Join(root, "proc"), sys: filepath.Join(root, "sys"), replay: filepath.Join(root, "replay")}
	for i := range allDevices {
		require.NoError(tb, allDriveKinds[i%len(allDriveKinds)]().Write(filepath.Join(h.replay, fmt.Sprintf("nvme%d", i))))
		// Controllers alternate between the nodes, so half the queues whose
		// effective CPU is on the other node show up as off-node.
		writeFile(tb, filepath.Join(h.sys, "class/nvme", fmt.Sprintf("nvme%d", i), "device/numa_node"), fmt.Sprintf("%d\n", i%2))
	}
	writeFile(tb, filepath.Join(h.sys, "class/net/eth0/device/numa_node"), "0\n")
	half := allCPUs / 2
	writeFile(tb, filepath.Join(h.sys, "devices/system/node/node0/cpulist"), fmt.Sprintf("0-%d\n", half-1))
	writeFile(tb, filepath.Join(h.sys, "devices/system/node/node1/cpulist"), fmt.Sprintf("%d-%d\n", half, allCPUs-1))
	writeFile(tb, filepath.Join(h.proc, "sys/kernel/osrelease"), "6.1.0-28-amd64\n")
	var stat strings.Builder
	stat.WriteString("cpu  1 2 3 4 5 6 7 8 0 0\n")
	for c := range allCPUs {
		fmt.Fprintf(&stat, "cpu%d 1 2 3 4 5 6 7 8 0 0\n", c)
	}
	stat.WriteString("intr 0\nctxt 0\nbtime 1700000000\nprocesses 1\nprocs_running 1\nprocs_blocked 0\n")
	writeFile(tb, filepath.Join(h.proc, "stat"), stat.String())
	writeFile(tb, filepath.Join(h.proc, "net/dev"), "Inter-|   Receive |  Transmit\n face |bytes packets errs drop fifo frame compressed multicast|bytes packets errs drop fifo colls carrier compressed\n  eth0: 1 2 0 3 0 0 0 0 4 5 0 6 0 0 0 0\n")

	// Affinity files and NIC MSI entries only for lines of interest: the
	// collector never reads the others.
	for i, a := range allIRQActions() {
		if a.device == "" {
			continue
		}
		h.linesOfInterest++
		irqN := 100 + i
		writeFile(tb, filepath.Join(h.proc, "irq", fmt.Sprint(irqN), "smp_affinity_list"), fmt.Sprintf("0-%d\n", allCPUs-1))
		writeFile(tb, filepath.Join(h.proc, "irq", fmt.Sprint(irqN), "effective_affinity_list"), fmt.Sprintf("%d\n", i%allCPUs))
		if a.device == "eth0" {
			writeFile(tb, filepath.Join(h.sys, "class/net/eth0/device/msi_irqs", fmt.Sprint(irqN)), "msix\n")
		}
	}
	writeAllInterrupts(tb, h, 0)

	var soft bytes.Buffer
	for c := range allCPUs {
		fmt.Fprintf(&soft, " CPU%d", c)
	}
	soft.WriteByte('\n')
	for _, ty := range allSoftirqTypes {
		soft.WriteString(ty + ":")
		for c := range allCPUs {
			fmt.Fprintf(&soft, " %d", c)
		}
		soft.WriteByte('\n')
	}
	writeFile(tb, filepath.Join(h.proc, "softirqs"), soft.String())

	h.dataDir = filepath.Join(root, "data/mysql1")
	for i := range 20 {
		writeFile(tb, filepath.Join(h.dataDir, fmt.Sprintf("db/t%d.ibd", i)), "x")
	}
	for i := range allFSPaths {
		p := filepath.Join(root, fmt.Sprintf("fs%d", i))
		require.NoError(tb, os.MkdirAll(p, 0o755))
		h.fsPaths = append(h.fsPaths, p)
	}
	return h
}

type irqAction struct{ name, device string }

// allIRQActions is the handler name of every numbered line, in order; device
// is "" for lines the exporter must ignore.
func allIRQActions() []irqAction {
	var out []irqAction
	for d := range allDevices {
		for q := range allQueues {
			out = append(out, irqAction{fmt.Sprintf("nvme%dq%d", d, q), fmt.Sprintf("nvme%d", d)})
		}
	}
	for q := range allNICQueues {
		out = append(out, irqAction{fmt.Sprintf("mlx5_comp%d@pci:0000:3b:00.0", q), "eth0"})
	}
	for len(out) < allIRQLines {
		out = append(out, irqAction{fmt.Sprintf("other%d", len(out)), ""})
	}
	return out
}

// writeAllInterrupts writes /proc/interrupts; bump is added to every count
// so a later call is a later sample with interrupts on every device.
func writeAllInterrupts(tb testing.TB, h *allHost, bump uint64) {
	tb.Helper()
	var b bytes.Buffer
	for c := range allCPUs {
		fmt.Fprintf(&b, " CPU%d", c)
	}
	b.WriteByte('\n')
	for i, a := range allIRQActions() {
		fmt.Fprintf(&b, "%4d:", 100+i)
		for c := range allCPUs {
			v := bump
			if c == i%allCPUs {
				v += uint64(1000 + i)
			}
			fmt.Fprintf(&b, " %d", v)
		}
		fmt.Fprintf(&b, "  IR-PCI-MSIX-0000:5e:00.0  %d-edge  %s\n", i, a.name)
	}
	b.WriteString(" ERR: 0\n")
	writeFile(tb, filepath.Join(h.proc, "interrupts"), b.String())
}

// allConfig is the exporter YAML: every collector configured; innodbDSNs
// (may be empty) become the innodb targets.
// irqPerCPU asks for the per-line, per-CPU interrupt series.
func allConfig(h *allHost, irqPerCPU bool, innodbDSNs ...string) string {
	var b strings.Builder
	b.WriteString("streams:\n  data_dirs: [" + h.dataDir + "]\n")
	b.WriteString("irq:\n  interfaces: [eth0]\n")
	if irqPerCPU {
		b.WriteString("  per_cpu: true\n")
	}
	b.WriteString("filesystem:\n  paths: [" + strings.Join(h.fsPaths, ", ") + "]\n")
	if len(innodbDSNs) > 0 {
		b.WriteString("innodb:\n  targets:\n")
		for i, dsn := range innodbDSNs {
			fmt.Fprintf(&b, "    - {name: db%d, dsn: %q}\n", i+1, dsn)
		}
	}
	return b.String()
}

// newAllApp builds the exporter exactly as serve does (exporterapp.New) with
// every registered collector on, on the fixture tree. The enabled switches
// are global; tests that go through run() get them reset by kingpin's flag
// defaults, and BenchmarkScrape24Devices sets its own.
func newAllApp(tb testing.TB, h *allHost, innodbDSNs ...string) *exporterapp.App {
	tb.Helper()
	return newFixtureApp(tb, h, true, func(string) bool { return true }, innodbDSNs...)
}

// newFixtureApp builds the exporter on the fixture tree with the collectors
// on for which enabled is true, the IRQ detail on or off.
func newFixtureApp(tb testing.TB, h *allHost, irqPerCPU bool, enabled func(string) bool, innodbDSNs ...string) *exporterapp.App {
	tb.Helper()
	for _, name := range collector.Names() {
		require.NoError(tb, collector.SetEnabled(name, enabled(name)))
	}
	o := exporterapp.Options{
		TelemetryPath: "/metrics", ReplayDir: h.replay,
		// Every scrape reads every device: Prometheus scrapes less often
		// than --nvme.cache-max-age, so the cold read is the common case.
		CacheMaxAge: time.Nanosecond,
		MaxRequests: 40,
		Paths:       collector.Paths{ProcFS: h.proc, SysFS: h.sys, DevFS: filepath.Join(h.root, "dev")},
		ConfigFile:  writeConfig(tb, allConfig(h, irqPerCPU, innodbDSNs...)),
	}
	a, err := exporterapp.New(o, slog.New(slog.DiscardHandler))
	require.NoError(tb, err)
	tb.Cleanup(func() { a.Close() })
	// Two WA samples a minute apart at fixed times, so the sampler's series
	// exist without running its clock.
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	require.NoError(tb, a.Sampler().Sample(context.Background(), t0))
	require.NoError(tb, a.Sampler().Sample(context.Background(), t0.Add(time.Minute)))
	return a
}

// scrapeAll does one full scrape through the HTTP handler in the text format.
func scrapeAll(tb testing.TB, h http.Handler) []byte {
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.Header.Set("Accept", "text/plain; version=0.0.4")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		tb.Fatalf("scrape: HTTP %d: %.500s", rec.Code, rec.Body.String())
	}
	body, err := io.ReadAll(rec.Result().Body)
	if err != nil {
		tb.Fatal(err)
	}
	return body
}

// countSamples is the number of sample lines (not comments, not blank).
func countSamples(body []byte) int {
	n := 0
	for line := range bytes.Lines(body) {
		if len(line) > 1 && line[0] != '#' {
			n++
		}
	}
	return n
}

// sampleSeries returns every sample line's series (name and labels, value
// dropped), sorted.
func sampleSeries(body []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		if i := strings.LastIndexByte(line, ' '); i > 0 {
			line = line[:i]
		}
		out = append(out, line)
	}
	sort.Strings(out)
	return out
}

func familyOf(series string) string {
	if i := strings.IndexAny(series, "{ "); i >= 0 {
		return series[:i]
	}
	return series
}

// seriesGroup names which part of the exporter a family belongs to.
func seriesGroup(family string, waFamilies map[string]bool) string {
	has := func(prefixes ...string) bool {
		for _, p := range prefixes {
			if strings.HasPrefix(family, p) {
				return true
			}
		}
		return false
	}
	switch {
	case waFamilies[family]:
		return "wa"
	case family == "walab_cpu_seconds_total":
		return "cpu"
	case strings.HasPrefix(family, "walab_network_"):
		return "network"
	case has("walab_irq_", "walab_softirqs_total", "walab_cpu_numa_node", "walab_irqbalance_running", "walab_device_numa_node"):
		return "irq"
	case has("walab_filesystem_"):
		return "filesystem"
	case has("walab_placement_trace_", "walab_nvme_write_commands_total", "walab_nvme_write_bytes_total"):
		return "placement_trace"
	case has("walab_io_size_trace_", "walab_blockdev_io_size_bytes"):
		return "io_size"
	case has("walab_nvme_directive_", "walab_nvme_streams_", "walab_nvme_fdp_", "walab_placement_", "walab_kernel_nvme_streams_param", "walab_write_hint_"):
		return "streams"
	case has("walab_scrape_collector_"):
		return "framework"
	case has("walab_mysql_", "walab_innodb_"):
		return "innodb"
	case has("walab_nvme_"):
		return "nvme"
	}
	return "self" // Go runtime, process, build info, promhttp
}

func groupCounts(series []string, waFamilies map[string]bool) map[string]int {
	out := map[string]int{}
	for _, s := range series {
		out[seriesGroup(familyOf(s), waFamilies)]++
	}
	return out
}

// perDevice counts the nvme and streams series of each controller by its
// device label.
func perDevice(series []string, waFamilies map[string]bool) [allDevices]map[string]int {
	var out [allDevices]map[string]int
	for i := range out {
		out[i] = map[string]int{}
	}
	for _, s := range series {
		g := seriesGroup(familyOf(s), waFamilies)
		if g != "nvme" && g != "streams" {
			continue
		}
		_, rest, ok := strings.Cut(s, `device="nvme`)
		if !ok {
			continue
		}
		var i int
		if _, err := fmt.Sscanf(rest, "%d\"", &i); err == nil && i >= 0 && i < allDevices {
			out[i][g]++
		}
	}
	return out
}

// waExpected derives the sampler's series from its own snapshot, so a new
// window in the WA config does not break this test; the names come from a
// registry holding only the sampler.
func waExpected(t *testing.T, a *exporterapp.App) (families map[string]bool, series int) {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(a.Sampler())
	mfs, err := reg.Gather()
	require.NoError(t, err)
	families = map[string]bool{}
	for _, mf := range mfs {
		families[mf.GetName()] = true
	}
	for _, d := range a.Sampler().Snapshot() {
		series += len(d.Windows) + 4 // window seconds each, resets, glitches, samples, last sample
		for _, w := range d.Windows {
			if w.HasWA {
				series++
			}
		}
		if !d.RunPending {
			series++
		}
	}
	return families, series
}

// Per-device series of one replayed controller of each kind, as the
// collectors emit them for these presets (same order as allDriveKinds:
// FDP, OCP C0, seed 000 C0, endurance group, SMART only). nvme includes the
// admin command stats of the reads the nvme and streams collectors send
// (the FDP drive, FDP enabled, is asked for its events log 0x23, which the
// fixture lacks: one more command series, no events series).
var (
	nvmeSeriesPerKind    = [5]int{24, 20, 21, 22, 20} // + walab_nvme_source_up where a source exists, + read timeouts
	streamsSeriesPerKind = [5]int{9, 9, 9, 9, 9}
)

// TestScrapeAllSeriesCount pins the whole exporter's series on the
// worst-case fixture (no InnoDB targets, so no MariaDB needed): the IRQ
// count is the formula of internal/collector/doc_cardinality.go, the others are per
// device/path. Scrapes 2 and 3 (after interrupts on every device) are the
// documented worst case and must hold exactly the same series.
func TestScrapeAllSeriesCount(t *testing.T) {
	h := genAllHost(t)
	require.Equal(t, allDevices*allQueues+allNICQueues, h.linesOfInterest)
	a := newAllApp(t, h)
	waFamilies, waSeries := waExpected(t, a)
	require.NotZero(t, waSeries, "the WA sampler has samples")

	L, C, D, T := h.linesOfInterest, allCPUs, allDevices+1, allSoftTypes
	irqWorst := L*(C+3) + 2*D + C*(T+1) + 1
	require.Equal(t, 224_571, irqWorst, "856 lines x 259 + 50 + 2,816 + 1")
	var nvme, streams int
	for i := range allDevices {
		nvme += nvmeSeriesPerKind[i%len(allDriveKinds)]
		streams += streamsSeriesPerKind[i%len(allDriveKinds)]
	}
	nvme++                                 // walab_nvme_controllers, one a host
	streams += 2*len(writehint.Labels) + 1 // one data dir: files, bytes per hint; truncated
	streams += 2                           // kernel param, placement daemon
	want := map[string]int{
		"irq":        irqWorst,
		"filesystem": 3 * allFSPaths,
		"streams":    streams,
		"nvme":       nvme,
		"wa":         waSeries,
		"framework":  2 * len(collector.Names()),
		"cpu":        allCPUs * 8, // CPUs x modes
		// The fixture host has no tracefs: up 0 and the reason, no counts.
		"placement_trace": 2,
		"io_size":         2, // as placement_trace: up 0 and the reason
		"network":         6, // one NIC x 6 counters
	}

	first := groupCounts(sampleSeries(scrapeAll(t, a.Handler())), waFamilies)
	// First scrape: each line has taken interrupts on one CPU (managed IRQs),
	// so it has one per-CPU series, not C; and no busiest-CPU share yet.
	require.Equal(t, irqWorst-D-L*(C-1), first["irq"], "first scrape: one CPU per line, no busiest-CPU share yet")

	writeAllInterrupts(t, h, 5)
	body2 := scrapeAll(t, a.Handler())
	writeAllInterrupts(t, h, 10)
	body3 := scrapeAll(t, a.Handler())
	s2, s3 := sampleSeries(body2), sampleSeries(body3)
	require.Equal(t, s2, s3, "the same series on every scrape once the worst case is reached")
	// The handler continues on gather errors (as serve configures it), so
	// check the registry itself: no duplicate or inconsistent series.
	_, err := a.Registry().Gather()
	require.NoError(t, err)
	got := groupCounts(s3, waFamilies)
	require.NotZero(t, got["self"], "Go and process metrics are served, as by serve")
	self := got["self"]
	delete(got, "self")
	t.Logf("series per group: %v, self %d, total %d", got, self, countSamples(body3))
	for i, byDev := range perDevice(s3, waFamilies) {
		kind := i % len(allDriveKinds)
		dev := fmt.Sprintf("nvme%d", i)
		require.Equal(t, nvmeSeriesPerKind[kind], byDev["nvme"], "%s nvme series", dev)
		require.Equal(t, streamsSeriesPerKind[kind], byDev["streams"], "%s streams series", dev)
	}
	require.Equal(t, want, got)
	require.NotContains(t, string(body3), `walab_scrape_collector_success{collector="irq"} 0`)
	for _, name := range collector.Names() {
		if name == "innodb" {
			continue // no targets: ErrNoData, reported as success
		}
		require.Contains(t, string(body3), fmt.Sprintf("walab_scrape_collector_success{collector=%q} 1", name))
	}
}

// BenchmarkScrapeAll scrapes the whole exporter, every collector on, over
// loopback HTTP in the text format: the fixture above plus two InnoDB
// targets (the machine's MariaDB and a private mariadbd). Over HTTP the body
// is read as it streams, counting sample lines, so the loop holds no 19 MB copy
// of it. "handler" calls the handler in process (httptest recorder, no
// socket); "text" asks over loopback for no compression; "gzip" asks for it
// as Prometheus does, and bytes/scrape is then what crosses the wire.
func BenchmarkScrapeAll(b *testing.B) {
	_, dsn1 := testenv.MariaDB(b, "walab_test_exporter_scrapeall")
	in := testenv.StartMariaDB(b)
	_, dsn2 := in.Open("")
	h := genAllHost(b)
	a := newAllApp(b, h, dsn1, dsn2)
	body := scrapeAll(b, a.Handler())
	require.Contains(b, string(body), `walab_mysql_up{target="db1"} 1`)
	require.Contains(b, string(body), `walab_mysql_up{target="db2"} 1`)
	srv := httptest.NewServer(a.Handler()) // listens on 127.0.0.1
	defer srv.Close()
	for _, bc := range []struct{ name, encoding string }{{"handler", ""}, {"text", "identity"}, {"gzip", "gzip"}} {
		b.Run(bc.name, func(b *testing.B) {
			var series, size int
			b.ReportAllocs()
			start := cpuTime()
			n := 0
			for b.Loop() {
				if bc.encoding == "" {
					// In process, no socket: the handler's own cost.
					body := scrapeAll(b, a.Handler())
					series, size = countSamples(body), len(body)
				} else {
					series, size = httpScrape(b, srv.URL+"/metrics", bc.encoding)
				}
				n++
			}
			b.ReportMetric(float64(series), "series/scrape")
			b.ReportMetric(float64(size), "bytes/scrape")
			if n > 0 {
				b.ReportMetric(float64(cpuTime()-start)/float64(n), "cpu-ns/op")
			}
		})
	}
}

// httpScrape GETs url in the text format with the given Accept-Encoding and
// returns the sample lines and the bytes received.
func httpScrape(b *testing.B, url, encoding string) (series, size int) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Accept", "text/plain; version=0.0.4")
	req.Header.Set("Accept-Encoding", encoding) // set explicitly: the client then leaves gzip to us
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("scrape: HTTP %d", resp.StatusCode)
	}
	wire := &byteCounter{}
	var r io.Reader = io.TeeReader(resp.Body, wire)
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r)
		if err != nil {
			b.Fatal(err)
		}
		r = zr
	} else if encoding == "gzip" {
		b.Fatal("asked for gzip, got an uncompressed body")
	}
	lc := &sampleLineCounter{atStart: true}
	if _, err := io.Copy(lc, r); err != nil {
		b.Fatal(err)
	}
	return lc.samples, wire.n
}

type byteCounter struct{ n int }

func (c *byteCounter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

// sampleLineCounter counts lines that are neither comments nor blank, in
// a stream split at arbitrary points.
type sampleLineCounter struct {
	atStart bool
	samples int
}

func (c *sampleLineCounter) Write(p []byte) (int, error) {
	for _, ch := range p {
		if c.atStart && ch != '#' && ch != '\n' {
			c.samples++
		}
		c.atStart = ch == '\n'
	}
	return len(p), nil
}

// cpuTime is this process's user+system CPU time in ns: on the shared
// 2-core box wall time mostly measures the other jobs.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
