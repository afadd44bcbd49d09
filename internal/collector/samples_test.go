package collector

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"
)

// sentInOrder runs one Update and returns, per family, the label values of
// the samples in the order they were sent.
func sentInOrder(t *testing.T, c Collector) map[string][][]string {
	t.Helper()
	ch := make(chan prometheus.Metric)
	errc := make(chan error, 1)
	go func() {
		errc <- c.Update(context.Background(), ch)
		close(ch)
	}()
	out := map[string][][]string{}
	for m := range ch {
		var pb dto.Metric
		require.NoError(t, m.Write(&pb))
		var values []string
		for _, lp := range pb.GetLabel() {
			values = append(values, lp.GetName()+"="+lp.GetValue())
		}
		name := m.Desc().String()
		out[name] = append(out[name], values)
	}
	require.NoError(t, <-errc)
	return out
}

// requireGatherOrder wants every family of the families named by prefix
// sent in the order client_golang's Gather sorts it into (label values
// compared as text, pair by pair), which is what decimalOrder promises.
func requireGatherOrder(t *testing.T, sent map[string][][]string, wantFamilies ...string) {
	t.Helper()
	seen := map[string]bool{}
	for desc, series := range sent {
		f := familyIn(desc, wantFamilies)
		if f == "" {
			continue // a few series a scrape, sent as they come
		}
		seen[f] = true
		for i := 1; i < len(series); i++ {
			a, b := series[i-1], series[i]
			require.Len(t, b, len(a), desc)
			for j := range a {
				va, vb := a[j][strings.IndexByte(a[j], '=')+1:], b[j][strings.IndexByte(b[j], '=')+1:]
				if va != vb {
					require.Less(t, va, vb, "%s: sample %d %v after %v", desc, i, b, a)
					break
				}
			}
		}
	}
	for _, f := range wantFamilies {
		require.True(t, seen[f], "family %s sent", f)
	}
}

// familyIn is the one of families that desc describes, or "".
func familyIn(desc string, families []string) string {
	for _, f := range families {
		if strings.Contains(desc, `"`+f+`"`) {
			return f
		}
	}
	return ""
}

// TestHostSeriesSentInGatherOrder: the irq and cpu collectors send each
// family already sorted, on a 256-CPU host (ids 0..255 sort as text as
// 0, 1, 10, 100, 101...) before and after interrupts on every CPU.
func TestHostSeriesSentInGatherOrder(t *testing.T) {
	root := t.TempDir()
	genIRQFixture(t, root, 256, 400, 0)
	c := newTestIRQ(t, root, "irq:\n  interfaces: [eth0]\n  per_cpu: true\n")
	families := []string{"walab_irq_interrupts_total", "walab_irq_affinity_cpus", "walab_irq_off_numa_node", "walab_softirqs_total", "walab_cpu_numa_node"}
	requireGatherOrder(t, sentInOrder(t, c), families...)
	genIRQFixture(t, root, 256, 400, 5)
	requireGatherOrder(t, sentInOrder(t, c), families...)

	var stat strings.Builder
	stat.WriteString("cpu  1 2 3 4 5 6 7 8 0 0\n")
	for cpu := range 256 {
		fmt.Fprintf(&stat, "cpu%d %d 2 3 4 5 6 7 8 0 0\n", cpu, cpu)
	}
	stat.WriteString("intr 0\nctxt 0\nbtime 1700000000\nprocesses 1\nprocs_running 1\nprocs_blocked 0\n")
	require.NoError(t, os.WriteFile(filepath.Join(root, "proc", "stat"), []byte(stat.String()), 0o644))
	cpu, err := newCPUCollector(Env{Paths: Paths{ProcFS: filepath.Join(root, "proc")}})
	require.NoError(t, err)
	sent := sentInOrder(t, cpu)
	requireGatherOrder(t, sent, "walab_cpu_seconds_total")
	for _, s := range sent {
		require.Len(t, s, 256*len(cpuModes))
	}
}
