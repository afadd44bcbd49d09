package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestExperimentCLI(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.yml")
	require.NoError(t, os.WriteFile(plan, []byte(`name: cli
reset:
  - command: rm -rf "$WALAB_OUT/../scratch"
    destructive: true
runs:
  - {name: a, command: 'echo run $WALAB_RUN_ID'}
`), 0o644))
	var out, errb bytes.Buffer
	require.Equal(t, 0, run([]string{"experiment", "run", plan, "--dry-run"}, &out, &errb), errb.String())
	require.Contains(t, out.String(), `rm -rf "$WALAB_OUT/../scratch"  [DESTRUCTIVE]`)

	out.Reset()
	o := filepath.Join(dir, "out")
	require.Equal(t, 0, run([]string{"experiment", "run", plan, "--out", o}, &out, &errb), errb.String())
	require.Contains(t, out.String(), "report: "+filepath.Join(o, "report.md"))
	log, err := os.ReadFile(filepath.Join(o, "logs", "002-a_r1_run.log"))
	require.NoError(t, err)
	require.Contains(t, string(log), "run cli-a-r1\n")

	// A second run into the same directory is refused; resume finds nothing left.
	errb.Reset()
	require.Equal(t, 2, run([]string{"experiment", "run", plan, "--out", o}, &out, &errb))
	require.Contains(t, errb.String(), "already holds an experiment")
	require.Equal(t, 0, run([]string{"experiment", "resume", "--out", o}, &out, &errb), errb.String())

	// A plan with an unmarked destructive step is refused before anything runs.
	bad := filepath.Join(dir, "bad.yml")
	require.NoError(t, os.WriteFile(bad, []byte("name: b\nreset: [{command: mkfs.xfs -f /dev/nvme0n1}]\nruns: [{name: a, command: 'true'}]\n"), 0o644))
	errb.Reset()
	require.Equal(t, 2, run([]string{"experiment", "run", bad, "--out", filepath.Join(dir, "b")}, &out, &errb))
	require.Contains(t, errb.String(), `line 2: reset[0]: "mkfs.xfs -f /dev/nvme0n1" looks destructive`)
	_, err = os.Stat(filepath.Join(dir, "b"))
	require.True(t, os.IsNotExist(err))
}
