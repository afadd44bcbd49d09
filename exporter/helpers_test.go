package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	dto "github.com/prometheus/client_model/go"

	"github.com/walab/walab/internal/collector"
	"github.com/walab/walab/internal/nvme/replay/fixture"
	"github.com/walab/walab/internal/testenv"
)

// fleetDrives is the replay fleet of the end-to-end test: one controller
// per NAND source.
func fleetDrives() map[string]fixture.Drive {
	seed := fixture.Seed000Drive()
	seed.Text = true // sysfs-style text files win over Identify strings
	seed.Model = "HWE52P434T0L005N (sysfs)"
	return map[string]fixture.Drive{
		"nvme0": fixture.FDPDrive(),
		"nvme1": fixture.OCPDrive(),
		"nvme2": seed,
		"nvme3": fixture.EnduranceDrive(),
		"nvme4": fixture.SMARTOnlyDrive(),
	}
}

func writeFleet(t testing.TB, drives map[string]fixture.Drive) string {
	t.Helper()
	root := t.TempDir()
	for name, d := range drives {
		require.NoError(t, d.Write(filepath.Join(root, name)))
	}
	return root
}

// writeConfig writes an exporter YAML that keeps the WA sampler in memory.
func writeConfig(t testing.TB, extra string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "walab.yml")
	require.NoError(t, os.WriteFile(p, []byte("wa:\n  persist: false\n"+extra), 0o644))
	return p
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer = testenv.Buffer

// startExporter runs the real exporter (run, as main does) on a loopback
// port and returns its base URL and log.
func startExporter(t *testing.T, args ...string) (string, *syncBuffer) {
	t.Helper()
	port := testenv.FreePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	ctx, cancel := context.WithCancel(context.Background())
	logs := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append(onlyNVMe(addr, args...), args...), logs)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			require.Equal(t, 0, code, "exporter exit code; log:\n%s", logs.String())
		case <-time.After(10 * time.Second):
			t.Error("exporter did not stop")
		}
	})
	base := "http://" + addr
	require.Eventually(t, func() bool {
		resp, err := http.Get(base + "/")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return true
	}, 20*time.Second, 20*time.Millisecond, "exporter did not come up; log:\n%s", logs.String())
	return base, logs
}

// onlyNVMe is the exporter arguments for the loopback address with every
// collector but nvme and wa (the WA sampler on the nvme reads) off: the
// other collectors' output belongs to their own tests, and some (streams)
// would add their own admin commands.
// A collector the caller enables in extra (--collector.NAME) is left on.
func onlyNVMe(addr string, extra ...string) []string {
	args := []string{"--web.listen-address=" + addr, "--log.level=info"}
	for _, name := range collector.Names() {
		if name != "nvme" && name != "wa" && !slices.Contains(extra, "--collector."+name) {
			args = append(args, "--no-collector."+name)
		}
	}
	return args
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

func parse(t *testing.T, body string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(strings.NewReader(body))
	require.NoError(t, err)
	return mfs
}

// value returns the sample of family name whose labels include want, and
// whether there is one.
func value(mfs map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	mf, ok := mfs[name]
	if !ok {
		return 0, false
	}
next:
	for _, m := range mf.GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if got[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Untyped != nil:
			return m.GetUntyped().GetValue(), true
		}
	}
	return 0, false
}

// normalize turns a scrape into the golden form, as node_exporter's e2e
// does: walab_* families only (Go, process and build info depend on the
// toolchain and the machine), collector durations and timestamps zeroed.
func normalize(body string) string {
	var out strings.Builder
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	volatile := regexp.MustCompile(`^((walab_scrape_collector_duration_seconds|walab_[a-z_]+_timestamp_seconds)\{[^}]*\}) .*$`)
	for sc.Scan() {
		line := sc.Text()
		name := strings.TrimPrefix(strings.TrimPrefix(line, "# HELP "), "# TYPE ")
		if !strings.HasPrefix(name, "walab_") || strings.HasPrefix(name, "walab_build_info") {
			continue
		}
		out.WriteString(volatile.ReplaceAllString(line, "$1 0"))
		out.WriteByte('\n')
	}
	return out.String()
}

func newRegistry(t testing.TB, cs ...prometheus.Collector) *prometheus.Registry {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(cs...)
	return reg
}

// gatherText renders gathered families in the text exposition format.
func gatherText(t testing.TB, mfs []*dto.MetricFamily) string {
	t.Helper()
	var b strings.Builder
	for _, mf := range mfs {
		_, err := expfmt.MetricFamilyToText(&b, mf)
		require.NoError(t, err)
	}
	return b.String()
}
