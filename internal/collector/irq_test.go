package collector

import (
	"bytes"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
)

// hostCopyTree copies a fixture tree into a fresh temp dir so a test can
// change or delete files without touching testdata.
func hostCopyTree(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	require.NoError(t, err)
	return dst
}

// irqTestConfig asks for the per-line, per-CPU detail (the lab's view);
// irqFleetConfig is the same lines with the default, per-device totals.
const (
	irqTestConfig  = irqFleetConfig + "  per_cpu: true\n"
	irqFleetConfig = "irq:\n  interfaces: [eth0]\n  match: '^(?P<device>virtio\\d+)-(input|output)'\n"
)

func newTestIRQ(t testing.TB, root, yml string) Collector {
	t.Helper()
	c, err := newIRQCollector(Env{
		Paths:  Paths{ProcFS: filepath.Join(root, "proc"), SysFS: filepath.Join(root, "sys")},
		Config: hostConfig(t, yml),
	})
	require.NoError(t, err)
	return c
}

// bumpInterrupts adds n to CPU column col of every numbered line whose text contains substr.
func bumpInterrupts(t *testing.T, root, substr string, col int, n uint64) {
	t.Helper()
	p := filepath.Join(root, "proc/interrupts")
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	for i, l := range lines[1:] {
		if !strings.Contains(l, substr) {
			continue
		}
		f := strings.Fields(l)
		var v uint64
		_, err := fmt.Sscan(f[1+col], &v)
		require.NoError(t, err)
		f[1+col] = fmt.Sprint(v + n)
		lines[i+1] = " " + strings.Join(f, " ")
	}
	require.NoError(t, os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644))
}

func TestIRQGolden(t *testing.T) {
	root := hostCopyTree(t, "testdata/irq")
	c := newTestIRQ(t, root, irqTestConfig)
	got, err := hostScrape(t, c)
	require.NoError(t, err)
	require.NotContains(t, got, "busiest", "one scrape is no interval")
	hostGolden(t, "irq/first.prom", got)

	// Second scrape: nvme0 took 900 more on CPU0 and 100 on CPU2 (share
	// 0.9); eth0 nothing (share absent); virtio2 100 on CPU3 (share 1).
	bumpInterrupts(t, root, "nvme0q1", 0, 900)
	bumpInterrupts(t, root, "nvme0q3", 2, 100)
	bumpInterrupts(t, root, "virtio2-input.0", 3, 100)
	got, err = hostScrape(t, c)
	require.NoError(t, err)
	require.Contains(t, got, `walab_irq_busiest_cpu_share_ratio{device="nvme0"} 0.9`)
	require.Contains(t, got, `walab_irq_busiest_cpu_share_ratio{device="virtio2"} 1`)
	require.NotContains(t, got, `walab_irq_busiest_cpu_share_ratio{device="eth0"}`)
	hostGolden(t, "irq/second.prom", got)
}

func TestIRQCounterResetSkipsInterval(t *testing.T) {
	root := hostCopyTree(t, "testdata/irq")
	c := newTestIRQ(t, root, irqTestConfig)
	_, err := hostScrape(t, c)
	require.NoError(t, err)
	bumpInterrupts(t, root, "nvme0q2", 1, 10)
	bumpInterrupts(t, root, "nvme0q1", 0, ^uint64(0)-981233) // wraps: CPU0 count goes down to 0
	got, err := hostScrape(t, c)
	require.NoError(t, err)
	require.NotContains(t, got, `busiest_cpu_share_ratio{device="nvme0"}`)
	bumpInterrupts(t, root, "nvme0q2", 1, 10)
	got, err = hostScrape(t, c)
	require.NoError(t, err)
	require.Contains(t, got, `walab_irq_busiest_cpu_share_ratio{device="nvme0"} 1`)
}

func TestIRQConfig(t *testing.T) {
	for _, tc := range []struct{ name, yml, err string }{
		{"bad regexp", "irq:\n  match: '('\n", "irq: match"},
		{"path as interface", "irq:\n  interfaces: [../eth0]\n", "not a plain name"},
		{"unknown key", "irq:\n  interface: [eth0]\n", "interface"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newIRQCollector(Env{Paths: hostPaths, Config: hostConfig(t, tc.yml)})
			require.ErrorContains(t, err, tc.err)
		})
	}
}

// TestIRQBadLineCostsTheLine: a malformed /proc/interrupts line (here one
// with too few counts) costs that line's series and a warning, not the
// collector's other series.
func TestIRQBadLineCostsTheLine(t *testing.T) {
	root := hostCopyTree(t, "testdata/irq")
	p := filepath.Join(root, "proc", "interrupts")
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, append(b, []byte(" 999: 981234 0\n")...), 0o644))
	var logs bytes.Buffer
	c, err := newIRQCollector(Env{
		Paths:  Paths{ProcFS: filepath.Join(root, "proc"), SysFS: filepath.Join(root, "sys")},
		Config: hostConfig(t, irqTestConfig), Logger: slog.New(slog.NewTextHandler(&logs, nil)),
	})
	require.NoError(t, err)
	out, err := hostScrape(t, c)
	require.NoError(t, err)
	require.Contains(t, out, "walab_irq_interrupts_total")
	require.NotContains(t, out, `irq="999"`)
	require.Contains(t, logs.String(), "line ")
	require.Contains(t, logs.String(), "header lists")
}

// TestIRQBrokenProcFiles: a truncated or malformed file fails this
// collector (success 0 through the framework), never panics.
func TestIRQBrokenProcFiles(t *testing.T) {
	for _, tc := range []struct{ name, file, content, err string }{
		{"interrupts cut mid-line", "interrupts", "  CPU0 CPU1\n 41: 981234", "truncated"},
		{"interrupts empty", "interrupts", "", "empty"},
		{"softirqs cut mid-line", "softirqs", "  CPU0 CPU1 CPU2 CPU3\n HI: 0 1", "truncated"},
		{"softirqs garbage", "softirqs", "  CPU0 CPU1 CPU2 CPU3\n HI: 0 1 x 3\n", `count "x"`},
		{"interrupts missing", "interrupts", "", "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := hostCopyTree(t, "testdata/irq")
			p := filepath.Join(root, "proc", tc.file)
			if tc.err == "no such file" {
				require.NoError(t, os.Remove(p))
			} else {
				require.NoError(t, os.WriteFile(p, []byte(tc.content), 0o644))
			}
			_, err := hostScrape(t, newTestIRQ(t, root, irqTestConfig))
			require.ErrorContains(t, err, tc.err)

			set, err := New(Env{Paths: Paths{ProcFS: filepath.Join(root, "proc"), SysFS: filepath.Join(root, "sys")}}, "irq")
			require.NoError(t, err)
			reg := prometheus.NewRegistry()
			reg.MustRegister(set)
			mfs, err := reg.Gather()
			require.NoError(t, err)
			var success float64 = -1
			for _, mf := range mfs {
				if mf.GetName() == "walab_scrape_collector_success" {
					success = mf.GetMetric()[0].GetGauge().GetValue()
				}
			}
			require.Equal(t, 0.0, success)
		})
	}
}

// TestIRQDeviceRemovedMidScrape: the NVMe controller's sysfs directory and
// one line's /proc/irq directory vanish; the rest is still served.
func TestIRQDeviceRemovedMidScrape(t *testing.T) {
	root := hostCopyTree(t, "testdata/irq")
	c := newTestIRQ(t, root, irqTestConfig)
	before, err := hostScrape(t, c)
	require.NoError(t, err)
	require.Contains(t, before, `walab_device_numa_node{device="nvme0"} 1`)
	require.NoError(t, os.RemoveAll(filepath.Join(root, "sys/class/nvme/nvme0")))
	require.NoError(t, os.RemoveAll(filepath.Join(root, "proc/irq/42")))
	after, err := hostScrape(t, c)
	require.NoError(t, err)
	require.NotContains(t, after, `walab_device_numa_node{device="nvme0"}`)
	require.NotContains(t, after, `walab_irq_off_numa_node{device="nvme0"`, "no node, no verdict")
	require.NotContains(t, after, `walab_irq_affinity_cpus{device="nvme0",irq="42"`)
	require.Contains(t, after, `walab_irq_affinity_cpus{device="nvme0",irq="43",kind="effective"} 1`)
	require.Contains(t, after, `walab_irq_off_numa_node{device="eth0",irq="71"} 1`)
}

// genIRQFixture writes a big host: cpus CPUs on two nodes, total numbered
// lines of which nvme0/nvme1 own 65 queues each and eth0 64 MSI-X vectors.
// bump is added to every count so a second call makes a second sample.
func genIRQFixture(tb testing.TB, root string, cpus, total int, bump uint64) (interesting int) {
	tb.Helper()
	proc, sys := filepath.Join(root, "proc"), filepath.Join(root, "sys")
	var b bytes.Buffer
	for c := range cpus {
		fmt.Fprintf(&b, " CPU%d", c)
	}
	b.WriteByte('\n')
	type spec struct{ action, dev string }
	var lines []spec
	for d := range 2 {
		for q := range 65 {
			lines = append(lines, spec{fmt.Sprintf("nvme%dq%d", d, q), fmt.Sprintf("nvme%d", d)})
		}
	}
	for q := range 64 {
		lines = append(lines, spec{fmt.Sprintf("mlx5_comp%d@pci:0000:3b:00.0", q), "eth0"})
	}
	interesting = len(lines)
	for len(lines) < total {
		lines = append(lines, spec{fmt.Sprintf("other%d", len(lines)), ""})
	}
	writes := map[string]string{}
	for i, l := range lines {
		irqN := 100 + i
		fmt.Fprintf(&b, "%4d:", irqN)
		for c := range cpus {
			v := bump
			if c == i%cpus {
				v += uint64(1000 + i)
			}
			fmt.Fprintf(&b, " %d", v)
		}
		fmt.Fprintf(&b, "  IR-PCI-MSIX-0000:5e:00.0  %d-edge  %s\n", i, l.action)
		if l.dev == "" {
			continue // the collector never reads affinity of other lines; skip 3,600 files
		}
		writes[fmt.Sprintf("irq/%d/smp_affinity_list", irqN)] = fmt.Sprintf("%d-%d\n", 0, cpus-1)
		writes[fmt.Sprintf("irq/%d/effective_affinity_list", irqN)] = fmt.Sprintf("%d\n", i%cpus)
		if l.dev == "eth0" {
			require.NoError(tb, os.MkdirAll(filepath.Join(sys, "class/net/eth0/device/msi_irqs"), 0o755))
			require.NoError(tb, os.WriteFile(filepath.Join(sys, "class/net/eth0/device/msi_irqs", fmt.Sprint(irqN)), []byte("msix\n"), 0o644))
		}
	}
	b.WriteString(" ERR: 0\n")
	require.NoError(tb, os.MkdirAll(proc, 0o755))
	require.NoError(tb, os.WriteFile(filepath.Join(proc, "interrupts"), b.Bytes(), 0o644))
	if bump > 0 {
		return interesting // topology already written
	}
	for p, c := range writes {
		require.NoError(tb, os.MkdirAll(filepath.Dir(filepath.Join(proc, p)), 0o755))
		require.NoError(tb, os.WriteFile(filepath.Join(proc, p), []byte(c), 0o644))
	}
	b.Reset()
	for c := range cpus {
		fmt.Fprintf(&b, " CPU%d", c)
	}
	b.WriteByte('\n')
	for _, ty := range []string{"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU"} {
		b.WriteString(ty + ":")
		for c := range cpus {
			fmt.Fprintf(&b, " %d", c)
		}
		b.WriteByte('\n')
	}
	require.NoError(tb, os.WriteFile(filepath.Join(proc, "softirqs"), b.Bytes(), 0o644))
	half := cpus / 2
	files := map[string]string{
		"devices/system/node/node0/cpulist": fmt.Sprintf("0-%d\n", half-1),
		"devices/system/node/node1/cpulist": fmt.Sprintf("%d-%d\n", half, cpus-1),
		"class/nvme/nvme0/device/numa_node": "0\n",
		"class/nvme/nvme1/device/numa_node": "1\n",
		"class/net/eth0/device/numa_node":   "0\n",
	}
	for p, c := range files {
		require.NoError(tb, os.MkdirAll(filepath.Dir(filepath.Join(sys, p)), 0o755))
		require.NoError(tb, os.WriteFile(filepath.Join(sys, p), []byte(c), 0o644))
	}
	return interesting
}

// TestIRQCardinalityBound pins the worst-case formula in
// internal/collector/doc_cardinality.go on a 256-CPU, 2,000-line host:
// L*(C+3) + 2*D + C*(T+1) + 1 with L lines of interest, C CPUs, D devices, T softirq types.
func TestIRQCardinalityBound(t *testing.T) {
	const cpus, total, devices, types = 256, 2000, 3, 10
	root := t.TempDir()
	l := genIRQFixture(t, root, cpus, total, 0)
	require.Equal(t, 194, l)
	c := newTestIRQ(t, root, "irq:\n  interfaces: [eth0]\n  per_cpu: true\n")
	// First scrape: no busiest-CPU share yet (needs an interval). Each line has
	// taken interrupts on one CPU only (managed IRQs), so it has one per-CPU series.
	require.Equal(t, l*(1+3)+devices+cpus*(types+1)+1, hostSeries(t, c))
	// Worst case: every CPU has taken every line's interrupts.
	genIRQFixture(t, root, cpus, total, 5)
	require.Equal(t, l*(cpus+3)+2*devices+cpus*(types+1)+1, hostSeries(t, c))
	require.Equal(t, 53069, l*(cpus+3)+2*devices+cpus*(types+1)+1)

	// Without per_cpu (the default), the L x C term is one series a device:
	// L*3 + 3*D + C*(T+1) + 1 on every scrape after the first.
	root = t.TempDir()
	genIRQFixture(t, root, cpus, total, 0)
	c = newTestIRQ(t, root, "irq:\n  interfaces: [eth0]\n")
	require.Equal(t, l*3+2*devices+cpus*(types+1)+1, hostSeries(t, c))
	genIRQFixture(t, root, cpus, total, 5)
	require.Equal(t, l*3+3*devices+cpus*(types+1)+1, hostSeries(t, c))
	require.Equal(t, 3408, l*3+3*devices+cpus*(types+1)+1)
}

// TestIRQDeviceTotals: by default each device has one interrupt counter,
// the sum of the per-line, per-CPU counters per_cpu: true exports, and no
// per-CPU series.
func TestIRQDeviceTotals(t *testing.T) {
	root := hostCopyTree(t, "testdata/irq")
	got, err := hostScrape(t, newTestIRQ(t, root, irqFleetConfig))
	require.NoError(t, err)
	require.NotContains(t, got, "walab_irq_interrupts_total{")
	hostGolden(t, "irq/fleet.prom", got)
	detail, err := hostScrape(t, newTestIRQ(t, root, irqTestConfig))
	require.NoError(t, err)
	sums := map[string]float64{}
	for _, line := range strings.Split(detail, "\n") {
		if !strings.HasPrefix(line, "walab_irq_interrupts_total{") {
			continue
		}
		_, rest, _ := strings.Cut(line, `device="`)
		dev, _, _ := strings.Cut(rest, `"`)
		var v float64
		_, err := fmt.Sscan(line[strings.LastIndexByte(line, ' ')+1:], &v)
		require.NoError(t, err)
		sums[dev] += v
	}
	require.Len(t, sums, 3)
	for dev, v := range sums {
		require.Contains(t, got, fmt.Sprintf("walab_irq_device_interrupts_total{device=%q} %v\n", dev, v))
	}
}

func BenchmarkIRQUpdate(b *testing.B) {
	root := b.TempDir()
	genIRQFixture(b, root, 256, 2000, 0)
	c := newTestIRQ(b, root, "irq:\n  interfaces: [eth0]\n")
	hostBench(b, func() { hostSeries(b, c) })
}

// TestIRQThisMachine runs the collector on the real /proc and /sys: whatever
// the host has, the files must parse and the host-wide series exist.
func TestIRQThisMachine(t *testing.T) {
	if _, err := os.Stat("/proc/interrupts"); err != nil {
		t.Skip("no /proc/interrupts")
	}
	c, err := newIRQCollector(Env{Paths: hostPaths, Config: hostConfig(t, "irq:\n  match: '^(virtio\\d+)-'\n")})
	require.NoError(t, err)
	got, err := hostScrape(t, c)
	require.NoError(t, err)
	require.Contains(t, got, `walab_softirqs_total{cpu="0",type="TIMER"}`)
	require.Contains(t, got, "walab_irqbalance_running ")
}

// TestIRQLabelCacheBounded: the reused label pairs follow the current
// lines of interest; a line that goes away leaves the cache.
func TestIRQLabelCacheBounded(t *testing.T) {
	root := hostCopyTree(t, "testdata/irq")
	c := newTestIRQ(t, root, irqTestConfig)
	_, err := hostScrape(t, c)
	require.NoError(t, err)
	require.Equal(t, 14, cachedIRQSeries(c), "the (line, CPU) pairs of the fixture with a non-zero count")
	p := filepath.Join(root, "proc/interrupts")
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	var kept []string
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if !strings.Contains(l, "nvme0q4") {
			kept = append(kept, l)
		}
	}
	require.NoError(t, os.WriteFile(p, []byte(strings.Join(kept, "")), 0o644))
	got, err := hostScrape(t, c)
	require.NoError(t, err)
	require.NotContains(t, got, "nvme0q4")
	require.Equal(t, 13, cachedIRQSeries(c), "nvme0q4 took interrupts on one CPU")
	require.NotContains(t, c.(*irqCollector).lines, 44, "nvme0q4's line left the cache")
}

// cachedIRQSeries counts the per-CPU interrupt series whose label pairs the
// collector keeps.
func cachedIRQSeries(c Collector) int {
	n := 0
	for _, l := range c.(*irqCollector).lines {
		n += len(l.perCPU)
	}
	return n
}
