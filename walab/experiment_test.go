package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
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

// TestSeed000NVMeDryRun: the shipped real-hardware plan passes validation
// with its documented variables (only the database host has no default)
// and is refused, naming the variable, without it.
func TestSeed000NVMeDryRun(t *testing.T) {
	plan := "../deploy/experiments/seed000-nvme.yml"
	var out, errb bytes.Buffer
	t.Setenv("WALAB_DB_HOST", "192.168.1.10")
	require.Equal(t, 0, run([]string{"experiment", "run", plan, "--dry-run"}, &out, &errb), errb.String())
	for _, want := range []string{
		"ssh -o BatchMode=yes root@192.168.1.10",
		"numactl -C 0-60 -i 0-3",
		"numactl -C 67-127 -i 0-3",
		"tpcc prepare --warehouses 4050",
	} {
		require.Contains(t, out.String(), want)
	}
	// A remote step shows its host and the plan's own command, with its
	// mark; the transport and the session guard are said once, at the top
	// (issue 56: each step printed the 600-character guard twice).
	for _, re := range []string{`(?m)^ +6 reset +baseline/reset/2-mkfs-1 +on db: umount /data 2>/dev/null; mkfs\.xfs -f /dev/nvme0n1  \[DESTRUCTIVE\]$`,
		`(?m)^ +17 reset +namespaces/reset/3-mkfs-2 +on db: umount /data2 2>/dev/null; mkfs\.xfs -f /dev/nvme0n2  \[DESTRUCTIVE\]$`,
		`namespaces/checks +checks: target_loaded\(stop\), same_data\(stop\), datadir\(stop\), discard\(stop\), discard\(stop\), fill\(stop\), placement\(stop\), placement\(warn\)`} {
		require.Regexp(t, re, out.String())
	}
	require.Equal(t, 1, strings.Count(out.String(), "ssh -o BatchMode=yes root@192.168.1.10"), "the transport, once")
	require.Equal(t, 1, strings.Count(out.String(), "session guard"))
	require.NotContains(t, out.String(), "walab-remote-session")
	for _, l := range strings.Split(out.String(), "\n") {
		require.LessOrEqual(t, len(l), 800, "no step line carries the guard: %s", l)
	}
	// --verbose: each remote step's full ssh line and the line its remote
	// shell runs, which carries the mark.
	out.Reset()
	require.Equal(t, 0, run([]string{"experiment", "run", plan, "--dry-run", "--verbose"}, &out, &errb), errb.String())
	require.Regexp(t, `baseline/reset/2-mkfs-1 +ssh -o BatchMode=yes root@192\.168\.1\.10 .*walab-remote-session.*mkfs\.xfs -f /dev/nvme0n1.*\n +remote shell runs: .*mkfs\.xfs -f /dev/nvme0n1.*\[DESTRUCTIVE\]`, out.String())

	os.Unsetenv("WALAB_DB_HOST")
	out.Reset()
	errb.Reset()
	require.Equal(t, 2, run([]string{"experiment", "run", plan, "--dry-run"}, &out, &errb))
	require.Contains(t, errb.String(), "${WALAB_DB_HOST} is not set and has no default (write ${WALAB_DB_HOST:-value})")
}

// TestExperimentTakenListenAddress: a --web.listen-address another
// process holds is refused before the output directory is made (issue 54,
// a residual of issue 42: the directory was left behind, and a second
// try was refused as "already holds an experiment").
func TestExperimentTakenListenAddress(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.yml")
	require.NoError(t, os.WriteFile(plan, []byte("name: l\nruns:\n  - {name: a, command: 'true'}\n"), 0o644))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	o := filepath.Join(dir, "out")
	var out, errb bytes.Buffer
	require.Equal(t, 2, run([]string{"experiment", "run", plan, "--out", o, "--web.listen-address", l.Addr().String()}, &out, &errb))
	require.Contains(t, errb.String(), "--web.listen-address")
	_, err = os.Stat(o)
	require.True(t, os.IsNotExist(err), "no output directory is left behind")
}
