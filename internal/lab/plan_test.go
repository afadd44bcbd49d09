package lab

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment"
	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
)

// TestPlanValuesStayValues: the lab hands Create its environment like any
// caller, so its values are expanded in the plan's values, never in its
// text: a database name with a line break and YAML of its own is one
// DSN's database and adds no section, and the stored plan is the file as
// written. The round and run length are the flags' durations, not text.
func TestPlanValuesStayValues(t *testing.T) {
	evil := "x\nchecks: []\ncompare: {baseline: streams, candidate: baseline}\nruns: [{name: y, command: 'rm -rf /'}]"
	o := testOptions(t, 3306, evil, "walab_lab_2")
	o.Round, o.RunFor = 7*time.Second, 77*time.Second
	src, err := o.readPlan(hostFor(o).databases())
	require.NoError(t, err)
	raw, err := os.ReadFile(o.Plan)
	require.NoError(t, err)
	require.Equal(t, raw, src.Raw, "the plan as written, not expanded")

	p, err := plan.Load(src, experiment.Kinds())
	require.NoError(t, err)
	require.Equal(t, "root@tcp(127.0.0.1:3306)/"+evil, p.Targets[0].DSN)
	require.Len(t, p.Checks, 7, "the value added no checks: section")
	require.Equal(t, "baseline", p.Compare.Baseline)
	require.Equal(t, "streams", p.Compare.Candidate)
	require.Len(t, p.Runs, 2)
	require.Equal(t, []string{"baseline", "streams"}, []string{p.Runs[0].Name, p.Runs[1].Name})
	require.Equal(t, 7*time.Second, p.Round.D())
	for _, r := range p.Runs {
		require.Equal(t, 77*time.Second, r.Duration.D(), r.Name)
	}

	// Create stores the plan as written and loads it with the same values.
	o.Out = t.TempDir()
	e, err := experiment.Create(src, filepath.Join(o.Out, "experiment"))
	require.NoError(t, err)
	stored, err := os.ReadFile(filepath.Join(o.Out, "experiment", state.PlanFile))
	require.NoError(t, err)
	require.Equal(t, raw, stored)
	require.Equal(t, "root@tcp(127.0.0.1:3306)/"+evil, e.Plan.Targets[0].DSN)
	require.Equal(t, 77*time.Second, e.Plan.Runs[1].Duration.D())
}

// TestPlanEnvValueIsOneValue: a ${NAME} the lab leaves to the environment
// (cycles) is one value too: YAML in it is a wrong number, not a section.
func TestPlanEnvValueIsOneValue(t *testing.T) {
	t.Setenv("WALAB_CYCLES", "1\nruns: []")
	o := testOptions(t, 3306, "a", "b")
	raw, err := os.ReadFile(o.Plan)
	require.NoError(t, err)
	line := 1 + strings.Count(string(raw[:strings.Index(string(raw), "\ncycles:")+1]), "\n") // the plan's cycles line
	_, err = o.readPlan(hostFor(o).databases())
	require.ErrorContains(t, err, fmt.Sprintf("line %d: cannot unmarshal !!str `1\nruns: []` into int", line))
}
