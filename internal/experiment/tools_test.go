package experiment

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/fingerprint"
	"github.com/walab/walab/internal/testenv"
)

func TestLoadgenVersion(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "loadgen")
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\necho 'loadgen version v1 (commit abc, go1.26.8)' >&2\n"), 0o755))
	e := &Executor{Plan: &plan.Plan{Loadgen: bin, Runs: []plan.Run{{Workload: "tpcc"}}}}
	require.True(t, e.Plan.UsesLoadgen())
	require.Equal(t, "v1 (commit abc, go1.26.8)", e.tools.loadgen(context.Background(), e.Plan.LoadgenBin()))
	// Today's loadgen prints the Prometheus exporters' several lines; the
	// fingerprint keeps one.
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\nprintf 'loadgen, version 0.1.0 (revision: abc-modified)\\n  build date:       20261206-08:57:19\\n  go version:       go1.26.8\\n  platform:         linux/arm64\\n' >&2\n"), 0o755))
	e = &Executor{Plan: &plan.Plan{Loadgen: bin, Runs: []plan.Run{{Workload: "tpcc"}}}}
	require.Equal(t, "0.1.0 (commit abc-modified, go1.26.8)", e.tools.loadgen(context.Background(), e.Plan.LoadgenBin()))
	gone := &Executor{Plan: &plan.Plan{Loadgen: filepath.Join(t.TempDir(), "none")}}
	require.Equal(t, "", gone.tools.loadgen(context.Background(), gone.Plan.LoadgenBin()))
	require.False(t, gone.Plan.UsesLoadgen())
}

// TestRunToolVersion (issue 47 item 2): a command: or fio: run records its
// tool's --version in the fingerprint (the real fio and sysbench of the
// machine), once per tool; a program walab does not know to answer
// --version (a benchmark script) is not asked and its version is absent.
func TestRunToolVersion(t *testing.T) {
	for _, bin := range []string{"fio", "sysbench"} {
		testenv.RequireBinary(t, bin)
	}
	for line, want := range map[string]string{
		"fio --name=x --rw=randwrite": "fio", "/usr/bin/fio job.fio": "/usr/bin/fio", "LD_PRELOAD= sysbench fileio run": "sysbench",
		"./runBenchmark.sh props.conf": "", "sh -c 'fio x'": "", "": "",
	} {
		require.Equal(t, want, runTool(&plan.Run{Command: line}), line)
	}
	require.Equal(t, "fio", runTool(&plan.Run{Fio: "fio --name=seq --rw=write"}))

	e := &Executor{Plan: &plan.Plan{}}
	for _, tc := range []struct {
		run    plan.Run
		key    string
		prefix string
	}{{plan.Run{Fio: "fio --name=x"}, "fio", "fio-"}, {plan.Run{Command: "sysbench fileio run"}, "sysbench", "sysbench "}} {
		f := &fingerprint.Fingerprint{Tools: map[string]string{"walab": "v1"}}
		newRunStep(e).recordTool(context.Background(), &tc.run, f)
		require.True(t, strings.HasPrefix(f.Tools[tc.key], tc.prefix), "%q", f.Tools)
		require.Equal(t, "v1", f.Tools["walab"])
	}
	f := &fingerprint.Fingerprint{}
	newRunStep(e).recordTool(context.Background(), &plan.Run{Command: "./runBenchmark.sh props.conf"}, f)
	require.Empty(t, f.Tools, "not asked, absent")
	e.tools.vers["fio"] = "cached"
	newRunStep(e).recordTool(context.Background(), &plan.Run{Fio: "fio x"}, f)
	require.Equal(t, "cached", f.Tools["fio"], "asked once per experiment")
}
