package experiment

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/testenv"
)

// TestRunInfoSpan: walab_experiment_run_info is there while a fio run
// goes on and gone after it (its samples are the run's span), one series
// at a time through a whole sweep; it passes promtool and is documented.
func TestRunInfoSpan(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewMetrics(reg, "exp")
	p := &plan.Plan{Name: "exp", Runs: []plan.Run{{Name: "rw", Fio: "fio --name=x", Sweep: &plan.Sweep{Threads: []int{1, 4, 64}}, Repeat: 2}}}
	items, err := plan.Steps(p)
	require.NoError(t, err)
	var text string
	for _, it := range items {
		if it.Phase != plan.PhaseRun {
			continue
		}
		end := m.runSpan(p, it, p.RunID(it, 1))
		n, err := testutil.GatherAndCount(reg, RunInfoMetric)
		require.NoError(t, err)
		require.Equal(t, 1, n, "one run at a time")
		if text == "" {
			var b strings.Builder
			fams, err := reg.Gather()
			require.NoError(t, err)
			for _, f := range fams {
				if f.GetName() == RunInfoMetric {
					b.WriteString("# HELP " + f.GetName() + " " + f.GetHelp() + "\n# TYPE " + f.GetName() + " gauge\n")
				}
			}
			text = b.String()
		}
		end()
		n, err = testutil.GatherAndCount(reg, RunInfoMetric)
		require.NoError(t, err)
		require.Zero(t, n, "gone when the run ends")
	}
	end := m.runSpan(p, items[0], "exp-rw-t1-r1")
	defer end()
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(text+
		`walab_experiment_run_info{experiment="exp",run="rw",run_id="exp-rw-t1-r1",scenario="rw",tool="fio"} 1
`), RunInfoMetric))
	doc, err := os.ReadFile("../../docs/metrics.md")
	require.NoError(t, err)
	require.Contains(t, string(doc), "| "+RunInfoMetric+" |")
	promtool := testenv.RequireBinary(t, "promtool")
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(text + `walab_experiment_run_info{experiment="exp",run="rw",run_id="exp-rw-t1-r1",scenario="rw",tool="fio"} 1` + "\n")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Empty(t, strings.TrimSpace(string(out)))
}
