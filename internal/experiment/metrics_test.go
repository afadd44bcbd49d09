package experiment

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
	"github.com/walab/walab/internal/fingerprint"
	"github.com/walab/walab/internal/testenv"
)

// TestMetricsContract: every experiment metric passes promtool, is listed
// in docs/metrics.md, and the WA gauge is absent until a value was read.
func TestMetricsContract(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewMetrics(reg, "exp")
	p := &plan.Plan{Name: "exp", Runs: []plan.Run{{Name: "base", Sweep: &plan.Sweep{Threads: []int{1, 2}}, Repeat: 3}}}
	items, err := plan.Steps(p)
	require.NoError(t, err)
	m.setTotal(len(items))
	run := items[0]
	m.setStep(run, time.Hour)
	n, err := testutil.GatherAndCount(reg, "walab_experiment_last_hourly_write_amplification")
	require.NoError(t, err)
	require.Zero(t, n, "no WA read yet: absent, not 0")
	m.setWA(1.34)
	wa := 1.2
	// Worst case of the run labels: every repetition of every thread count.
	for _, it := range items {
		if it.Phase != plan.PhaseRun {
			continue
		}
		id := p.RunID(it, 1)
		m.fingerprint(p, id, it, &fingerprint.Fingerprint{Drive: &fingerprint.Drive{Model: "M", Firmware: "F", Serial: "S"},
			Host: fingerprint.Host{Kernel: "6.1"}, MySQL: []fingerprint.MySQL{{Version: "10.11"}, {Version: "10.11"}}})
		m.runDone(p, &state.RunRecord{RunID: id, Run: it.Run.Name, Scenario: it.Run.ScenarioLabel(), WA: &wa})
		m.stepDone()
	}
	m.setStep(items[len(items)-1], 0)
	n, err = testutil.GatherAndCount(reg, "walab_experiment_run_fingerprint_info")
	require.NoError(t, err)
	require.Equal(t, 6, n, "one series per counted run of the plan")
	n, err = testutil.GatherAndCount(reg, "walab_experiment_phase_info")
	require.NoError(t, err)
	require.Equal(t, 1, n, "one phase series at a time")

	fams, err := reg.Gather()
	require.NoError(t, err)
	var text strings.Builder
	for _, f := range fams {
		_, err := expfmt.MetricFamilyToText(&text, f)
		require.NoError(t, err)
	}
	require.Contains(t, text.String(), `walab_experiment_run_fingerprint_info{experiment="exp",firmware="F",kernel="6.1",model="M",mysql_version="10.11",run="base",run_id="exp-base-t2-r3",scenario="base",serial="S"} 1`)
	doc, err := os.ReadFile("../../docs/metrics.md")
	require.NoError(t, err)
	for _, f := range fams {
		require.Regexp(t, regexp.MustCompile(`(?m)^\| `+f.GetName()+` \|`), string(doc), "docs/metrics.md row")
	}
	promtool := testenv.RequireBinary(t, "promtool")
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(text.String())
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Empty(t, strings.TrimSpace(string(out)))
}
