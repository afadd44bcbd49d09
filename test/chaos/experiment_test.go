package chaos

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExperimentChaosScript runs test/chaos/experiment.sh with 2 kills of
// the runner: no step process outlives it, resume ends what a killed guard
// left, no password reaches a file, /dev/zero is no plan.
func TestExperimentChaosScript(t *testing.T) {
	out, err := exec.Command("bash", "experiment.sh", "2").CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, want := range []string{
		"runner kills: 2, step processes left running: 0, failed resumes: 0, wrong step counts: 0",
		"before resume: the step's sleep runs on (the attack)",
		"after resume: the step's sleep is gone",
		"resume without --redo: refused, names the step",
		"files holding the password: 0, files readable by others: 0",
		"plan /dev/zero: walab experiment: /dev/zero is a character device: not a regular file",
	} {
		require.Contains(t, string(out), want)
	}
	require.NotContains(t, string(out), "STILL RUNS")
}
