package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/blockdev"
	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/report"
	"github.com/walab/walab/internal/experiment/state"
	"github.com/walab/walab/internal/fio"
	"github.com/walab/walab/internal/testenv"
)

// seed002RandWrite is seed 002's randwrite line, size and runtime as plan
// variables.
const seed002RandWrite = "fio --filename=%s -ioengine=libaio -direct=1 -iodepth=32 -rw=randwrite -bs=4k -size=%s -numjobs=%s -runtime=%s -group_reporting -name=test-rand-write"

func TestFioPlanValidation(t *testing.T) {
	for _, tc := range []struct{ run, want string }{
		{`fio: "fio --filename=/dev/loop9 --rw=randwrite --name=x"`, "fio on the raw device /dev/loop9 overwrites it: add destructive: true"},
		{`fio: "fio --name=x --output=/tmp/o.json"`, "walab sets fio's output file"},
		{`fio: "fio --name=x --output-format=terse"`, "json or json+ only"},
		{`fio: "fio --client=h --name=x"`, "this host only"},
		{`fio: "fio --status-interval=10 --name=x"`, "one final report"},
		{`fio: "sysbench fileio run"`, "starting with fio"},
		{`fio: "fio --name=x 'unclosed"`, "invalid command line string"},
		{`{fio: "fio job.fio", sweep: {threads: [1, 2]}}`, "a job file or several jobs do not take it"},
		{`{fio: "fio --name=a --name=b", sweep: {threads: [1, 2]}}`, "a job file or several jobs do not take it"},
		{`{fio: "fio --name=x", duration: 10s}`, "fio's runtime is in its line"},
		{`{fio: "fio --name=x", command: "true"}`, "give one of workload (loadgen), command or fio"},
		{`{command: "true", destructive: true}`, "only a fio run may write a raw device"},
	} {
		run := "name: r\n    " + tc.run
		if strings.HasPrefix(tc.run, "{") {
			run = strings.Replace(tc.run, "{", "{name: r, ", 1)
		}
		_, err := Parse([]byte("name: v\nruns:\n  - " + run + "\n"))
		require.ErrorContains(t, err, tc.want, tc.run)
	}
	_, err := Parse([]byte("name: v\nruns:\n  - {name: r, destructive: true, fio: \"fio --filename=/dev/loop9 --name=x\"}\n"))
	require.NoError(t, err)
	_, err = Parse([]byte("name: v\nruns:\n  - {name: r, fio: \"fio --filename=/mnt/dev/file:/srv/b --name=x\"}\n"))
	require.NoError(t, err, "files whose path merely contains /dev/ are files")
	_, err = Parse([]byte("name: v\nruns:\n  - {name: r, fio: \"fio --filename=/srv/a:/dev/sdb --name=x\"}\n"))
	require.ErrorContains(t, err, "fio on the raw device /dev/sdb overwrites it")
	// A step that runs fio on a device is destructive too.
	_, err = Parse([]byte("name: v\nprecondition:\n  - command: fio --filename=/dev/nvme0n1 --rw=write --loops=2 --name=fill\nruns:\n  - {name: r, fio: \"fio --name=x\"}\n"))
	require.ErrorContains(t, err, "fio on a raw device overwrites it")
}

// TestFioDryRun: each fio command exactly as it will run, with the JSON
// output walab adds and the sweep's numjobs; a raw-device run is flagged.
func TestFioDryRun(t *testing.T) {
	p, err := Parse([]byte(`name: d
runs:
  - name: rw
    fio: fio --filename=./testfile -rw=randwrite -bs=4k -size=64M -numjobs=64 -runtime=3 -group_reporting -name=test-rand-write
    sweep: {threads: [4, 64]}
  - name: dev
    destructive: true
    fio: fio --filename=/dev/loop9 -rw=write -name=w --output-format=json+
`))
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, DryRun(p, &out))
	s := out.String()
	require.Contains(t, s, "fio --filename=./testfile -rw=randwrite -bs=4k -size=64M -numjobs=64 -runtime=3 -group_reporting -name=test-rand-write --numjobs=4 --output-format=json --output=RUN_DIR/fio.json   (fingerprint at start and end, 3s)")
	require.Contains(t, s, "--numjobs=64 --output-format=json --output=RUN_DIR/fio.json")
	require.Regexp(t, `fio --filename=/dev/loop9 -rw=write -name=w --output-format=json\+ --output=RUN_DIR/fio.json .*\[DESTRUCTIVE\]`, s)
}

func fioPlan(line string) []byte {
	return []byte("name: f\nruns:\n  - name: w\n    fio: " + line + "\n")
}

// TestFioRunOnFile: the real fio runs seed 002's randwrite line (scaled)
// on a file; the run record holds fio's figures and the block layer's
// view of the file's device, and the report shows both.
func TestFioRunOnFile(t *testing.T) {
	testenv.RequireBinary(t, "fio")
	dir := t.TempDir()
	line := strings.Replace(seed002RandWrite, "-ioengine=libaio -direct=1", "-ioengine=psync", 1) // tmpfs may refuse O_DIRECT
	e, err := create(fioPlan(sprintf(line, filepath.Join(dir, "testfile"), "4M", "2", "1")), filepath.Join(dir, "out"))
	require.NoError(t, err)
	require.NoError(t, e.Execute(context.Background()))
	require.Len(t, e.State().Runs, 1)
	r := e.State().Runs[0]
	require.NotNil(t, r.Fio)
	require.Equal(t, "fio-3.33", r.Fio.Version)
	require.Len(t, r.Fio.Jobs, 1, "group_reporting: one group")
	require.Greater(t, r.Fio.Total.WriteIOPS, 0.0)
	require.Equal(t, uint64(2*4<<20/4096), r.Fio.Total.WriteIOs, "2 jobs × 4 MiB in 4 KiB writes")
	_, ok := r.Fio.Jobs[0].Write.Clat(99)
	require.True(t, ok)
	b, err := os.ReadFile(filepath.Join(dir, "out", r.Dir, plan.FioOutput))
	require.NoError(t, err)
	require.True(t, json.Valid(b))
	rep := e.Report()
	require.Contains(t, rep, "## fio runs")
	require.Regexp(t, `\| f-w-r1 \| \(line\) \| 0 \| [0-9]+ \| 0\.00 \| [0-9.]+ \| — \| [0-9.]+ / [0-9.]+ / [0-9.]+ \| 0 \| — \|`, rep)
}

func sprintf(format string, args ...any) string {
	return strings.TrimSpace(fmt.Sprintf(format, args...))
}

// TestFioFailuresCountNothing: a fio that exits non-zero, or writes a
// report that is not JSON, fails the run with the reason; no run is counted.
func TestFioFailuresCountNothing(t *testing.T) {
	testenv.RequireBinary(t, "fio")
	dir := t.TempDir()
	fake := filepath.Join(dir, "bin", "fio")
	require.NoError(t, os.MkdirAll(filepath.Dir(fake), 0o755))
	require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\nfor a; do case $a in --output=*) printf '{\"jobs\": [' > \"${a#--output=}\";; esac; done\n"), 0o755))
	for i, tc := range []struct{ line, want string }{
		{"fio --name=x --rw=nonsense", "exit status 1"},
		{fake + " --name=x", "fio report: unexpected EOF"},
	} {
		e, err := create(fioPlan(tc.line), filepath.Join(dir, "out"+string(rune('a'+i))))
		require.NoError(t, err)
		err = e.Execute(context.Background())
		require.ErrorContains(t, err, tc.want)
		require.Empty(t, e.State().Runs, "nothing of a failed fio run is counted")
	}
}

// TestFioRefusesMountedDevice: fio on the device of a mounted loop
// filesystem is refused before fio starts: by the plan check without
// destructive: true, and by the raw-device guard with it.
func TestFioRefusesMountedDevice(t *testing.T) {
	testenv.RequireBinary(t, "fio")
	mkfs := testenv.RequireBinary(t, "mkfs.ext4")
	dir := t.TempDir()
	dev := testLoop(t, 32<<20)
	out, err := exec.Command(mkfs, "-q", dev).CombinedOutput()
	require.NoError(t, err, "%s", out)
	mnt := filepath.Join(dir, "mnt")
	require.NoError(t, os.Mkdir(mnt, 0o755))
	if out, err := exec.Command("mount", dev, mnt).CombinedOutput(); err != nil {
		testenv.Missing(t, "mount %s: %v: %s", dev, err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", mnt).Run() })
	require.NoError(t, os.WriteFile(filepath.Join(mnt, "keep"), []byte("data"), 0o644))

	line := sprintf(seed002RandWrite, dev, "1M", "1", "1")
	_, err = Parse(fioPlan(line))
	require.ErrorContains(t, err, "fio on the raw device "+dev+" overwrites it: add destructive: true")

	yml := []byte("name: f\nruns:\n  - name: w\n    destructive: true\n    fio: " + line + "\n")
	e, err := create(yml, filepath.Join(dir, "out"))
	require.NoError(t, err)
	err = e.Execute(context.Background())
	require.ErrorContains(t, err, "fio refused before it started: device "+dev+": "+filepath.Base(dev)+" is mounted on "+mnt+": refused")
	require.Empty(t, e.State().Runs)
	_, err = os.Stat(filepath.Join(dir, "out", "runs", "f-w-r1", plan.FioOutput))
	require.ErrorIs(t, err, os.ErrNotExist, "fio never ran")
	b, err := os.ReadFile(filepath.Join(mnt, "keep"))
	require.NoError(t, err)
	require.Equal(t, "data", string(b))
}

// TestSeed002PlanDryRun: the shipped plan carries seed 002's five fio
// lines verbatim (with its defaults), and the dry run prints each with the
// sweep's numjobs and fio's JSON output. The test states the free space it
// assumes (1 TiB) instead of reading this machine's: 64G × 1 shared file
// was refused on a machine with 63.5 GiB free (issue 56), and is, below.
func TestSeed002PlanDryRun(t *testing.T) {
	data, err := os.ReadFile("../../deploy/experiments/seed002-fio.yml")
	require.NoError(t, err)
	noEnv := func(string) (string, bool) { return "", false }
	free := func(n uint64) plan.Settings {
		return plan.Settings{FreeSpace: func(string) (uint64, bool) { return n, true }}
	}
	_, err = plan.Load(plan.Source{Raw: data, Getenv: noEnv, Set: free(68144791552)}, Kinds())
	require.ErrorContains(t, err, "size=64G × 1 job(s) is more than the 68144791552 bytes free under ./testfile")
	p, err := plan.Load(plan.Source{Raw: data, Getenv: noEnv, Set: free(1 << 40)}, Kinds())
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, DryRun(p, &out))
	seed, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "shared", "seeds", "002_16f2a51a8daec0d5.txt"))
	lines := []string{
		"fio --filename=./testfile -ioengine=libaio -direct=1 -iodepth=32 -rw=randrw -bs=4k -size=64G -numjobs=64 -runtime=60 -group_reporting -name=test-rand-readwrite",
		"fio --filename=./testfile -ioengine=libaio -direct=1 -iodepth=32 -rw=randread -bs=4k -size=64G -numjobs=64 -runtime=60 -group_reporting -name=test-rand-read",
		"fio --filename=./testfile -ioengine=libaio -direct=1 -iodepth=32 -rw=randwrite -bs=4k -size=64G -numjobs=64 -runtime=60 -group_reporting -name=test-rand-write",
		"fio --filename=./testfile -ioengine=libaio --direct=1 -iodepth=32 --rw=read -bs=4k -size=64G -numjobs=4 -runtime=60 --group_reporting --name=test-read",
		"fio --filename=./testfile -ioengine=libaio -direct=1 -iodepth=32 -rw=write -bs=4k -size=64G -numjobs=4 -runtime=60 -group_reporting -name=test-write",
	}
	for i, l := range lines {
		if err == nil { // the seed text, where this checkout sits beside it
			require.Contains(t, string(seed), l)
		}
		n := []string{"64", "64", "64", "4", "4"}[i]
		require.Contains(t, out.String(), l+" --numjobs="+n+" --output-format=json --output=RUN_DIR/fio.json")
	}
}

// TestSeed001PlanOnLoop: the shipped RAID 5 plan, unchanged but for its
// variables, on a loop device in place of the md array (this kernel may have
// no md): the fill, then both fio runs through the raw-device guard, each
// recorded with the loop device's iostat view.
func TestSeed001PlanOnLoop(t *testing.T) {
	testenv.RequireBinary(t, "fio")
	dev := testLoop(t, 16<<20)
	data, err := os.ReadFile("../../deploy/experiments/seed001-raid5-fio.yml")
	require.NoError(t, err)
	env := map[string]string{"WALAB_ARRAY": dev, "WALAB_FILL_LOOPS": "1", "WALAB_FIO_NUMJOBS": "2", "WALAB_FIO_RUNTIME": "1"}
	e, err := Create(plan.Source{Raw: data, Getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}, filepath.Join(t.TempDir(), "out"))
	require.NoError(t, err)
	require.NoError(t, e.Execute(context.Background()))
	require.Len(t, e.State().Runs, 2)
	for _, r := range e.State().Runs {
		require.NotNil(t, r.Fio)
		require.Greater(t, r.Fio.Total.WriteIOPS, 0.0, r.RunID)
		require.Len(t, r.Fio.Block, 1)
		require.Equal(t, filepath.Base(dev), r.Fio.Block[0].Device)
		require.Greater(t, r.Fio.Block[0].WritesPerSec, 0.0)
	}
}

// testLoop attaches a loop device over a new file of size bytes.
func testLoop(t *testing.T, size int64) string {
	t.Helper()
	losetup := testenv.RequireBinary(t, "losetup")
	img := filepath.Join(t.TempDir(), "img")
	require.NoError(t, os.WriteFile(img, nil, 0o644))
	require.NoError(t, os.Truncate(img, size))
	out, err := exec.Command(losetup, "-f", "--show", img).CombinedOutput()
	if err != nil {
		testenv.Missing(t, "losetup: %v: %s", err, out)
	}
	dev := strings.TrimSpace(string(out))
	t.Cleanup(func() { _ = exec.Command(losetup, "-d", dev).Run() })
	return dev
}

// TestFioSymlinkToDeviceIsADevice: a filename that is a symlink outside
// /dev to a block device is a raw device too: refused before fio starts
// without destructive: true.
func TestFioSymlinkToDeviceIsADevice(t *testing.T) {
	testenv.RequireBinary(t, "fio")
	dev := testLoop(t, 8<<20)
	dir := t.TempDir()
	link := filepath.Join(dir, "innocent")
	require.NoError(t, os.Symlink(dev, link))
	// Found at validation, before any step runs (issue 42 item 4).
	_, err := create(fioPlan("fio --filename="+link+" --rw=write --size=1M --name=x"), filepath.Join(dir, "out"))
	require.ErrorContains(t, err, "fio on the raw device "+link+" overwrites it: add destructive: true")
}

// TestFioReportSteadyState: fio's --steadystate result (fio 3.33's report
// of a job with iops:20%, 2 s) shows in the report's fio row, and a
// device the span could not be read for shows as not found, never as 0.
func TestFioReportSteadyState(t *testing.T) {
	b, err := os.ReadFile("../fio/testdata/fio-3.33-steadystate.json")
	require.NoError(t, err)
	out, err := fio.Parse(b)
	require.NoError(t, err)
	p, err := Parse(fioPlan("fio --name=ss"))
	require.NoError(t, err)
	md := report.Markdown(report.Input{Plan: p, Out: t.TempDir(), State: &state.State{Steps: map[string]*state.StepState{}, Runs: []state.RunRecord{{RunID: "f-w-r1", Run: "w",
		Fio: &state.FioRecord{Version: out.Version, Total: out.Total(), Jobs: out.Jobs}}}}})
	require.Contains(t, md, "| 0 | 1 of 1 jobs attained (iops:20.000000% 4.047131% over 2s) | (not found) | — |")
}

// TestFioReportMixed: a fio run with --unified_rw_reporting=mixed (fio
// 3.16's report) shows no read or write figure (fio printed none), and
// its IOPS, bandwidth and latency over every direction in a line of its
// own; the sweep's peak counts them.
func TestFioReportMixed(t *testing.T) {
	b, err := os.ReadFile("../fio/testdata/fio-3.16-mixed.json")
	require.NoError(t, err)
	out, err := fio.Parse(b)
	require.NoError(t, err)
	p, err := Parse([]byte("name: m\nruns:\n  - {name: m, fio: \"fio --name=mixed\", sweep: {threads: [1]}}\n"))
	require.NoError(t, err)
	rec := state.RunRecord{RunID: "m-m-t1-r1", Run: "m", Threads: 1, Fio: &state.FioRecord{Version: out.Version, Total: out.Total(), Jobs: out.Jobs}}
	md := report.Markdown(report.Input{Plan: p, Out: t.TempDir(), State: &state.State{Steps: map[string]*state.StepState{}, Runs: []state.RunRecord{rec}}})
	require.Contains(t, md, "| m-m-t1-r1 | 1 | — | — | — | — | — | — | 0 | — |")
	require.Contains(t, md, "m-m-t1-r1: fio reported reads and writes together in 1 of 1 jobs (--unified_rw_reporting=mixed), in neither column above: over every job 6585 IOPS, 25.72 MiB/s; mixed clat p50/p99/p99.9 0.005 / 2.540 / 8.094 ms.")
	require.Contains(t, md, "Sweep m: peak IOPS at **numjobs 1**, 6585 IOPS")
	other := rec
	require.Contains(t, report.FioBeside(&rec, &other), "IOPS (every direction)")
}

// TestFioSweepPeak: a swept fio run names the numjobs of highest mean IOPS
// (read + write) over its repetitions; a run with no counted repetition
// names none.
func TestFioSweepPeak(t *testing.T) {
	p, err := Parse([]byte("name: s\nruns:\n  - {name: rw, fio: \"fio --name=x\", sweep: {threads: [1, 4, 16]}, repeat: 2}\n  - {name: none, fio: \"fio --name=y\", sweep: {threads: [1]}}\n"))
	require.NoError(t, err)
	rec := func(n int, r, w float64) state.RunRecord {
		return state.RunRecord{Run: "rw", Threads: n, Fio: &state.FioRecord{Total: fio.Total{ReadIOPS: r, WriteIOPS: w}, Jobs: []fio.Job{{Read: fio.Dir{IOPS: r}, Write: fio.Dir{IOPS: w}}}}}
	}
	st := &state.State{Runs: []state.RunRecord{rec(1, 100, 100), rec(1, 110, 90), rec(4, 300, 300), rec(4, 320, 280), rec(16, 500, 0), rec(16, 400, 0)}}
	md := report.Markdown(report.Input{Plan: p, State: st, Out: t.TempDir()})
	require.Contains(t, md, "\n\nSweep rw: peak IOPS at **numjobs 4**, 600 IOPS (read + write + trim, or mixed; mean of 2).\n\nSweep none: no fio run counted, no peak.\n\n")
}

// TestIOStatArithmetic: iostat -x's columns over two diskstats samples 2 s
// apart: 300 writes of 8 sectors (4 KiB) in 600 ms of write time are 150
// w/s, 0.586 MiB/s and a 2 ms w_await; no reads, no read await (not 0).
func TestIOStatArithmetic(t *testing.T) {
	a := blockdev.Stat{Name: "loop7", WriteIOs: 100, WriteSectors: 800, WriteTicks: 50, IOTicks: 1000}
	z := blockdev.Stat{Name: "loop7", WriteIOs: 400, WriteSectors: 800 + 300*8, WriteTicks: 650, IOTicks: 2500}
	s := iostat("loop7", a, z, 2)
	require.Equal(t, 150.0, s.WritesPerSec)
	require.Equal(t, 0.0, s.ReadsPerSec)
	require.Equal(t, float64(300*4096)/2, s.WriteBytesPerSec)
	require.NotNil(t, s.WriteAwaitMs)
	require.Equal(t, 2.0, *s.WriteAwaitMs)
	require.Nil(t, s.ReadAwaitMs)
	require.Equal(t, 0.75, s.Util)
}

// TestFioInterruptedNotCounted: a report fio wrote after a signal stopped
// it (fio 3.33, SIGINT after 2.5 s of a 30 s run) is complete JSON but of
// a shortened run: refused, nothing counted.
func TestFioInterruptedNotCounted(t *testing.T) {
	b, err := os.ReadFile("../fio/testdata/fio-3.33-interrupted.json")
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, plan.FioOutput), b, 0o644))
	w := &fioWatch{}
	rec, err := w.after(dir, "runs/x", time.Now(), time.Now())
	require.ErrorContains(t, err, "fio was stopped by signal 2: its figures are of a shortened run")
	require.Nil(t, rec)
}

// TestFioReportIOErrors: a job that went on after I/O errors
// (continue_on_error: total_err 12, error 0) is counted, and the report's
// job errors column says so (issue 54; it said 0).
func TestFioReportIOErrors(t *testing.T) {
	out, err := fio.Parse([]byte(`{"fio version":"fio-3.33","jobs":[{"jobname":"c","error":0,"total_err":12,` +
		`"write":{"iops":100,"io_bytes":4096,"io_kbytes":4,"bw_bytes":409600,"total_ios":1}}]}`))
	require.NoError(t, err)
	p, err := Parse(fioPlan("fio --name=c"))
	require.NoError(t, err)
	md := report.Markdown(report.Input{Plan: p, Out: t.TempDir(), State: &state.State{Steps: map[string]*state.StepState{}, Runs: []state.RunRecord{{RunID: "f-w-r1", Run: "w",
		Fio: &state.FioRecord{Version: out.Version, Total: out.Total(), Jobs: out.Jobs}}}}})
	require.Contains(t, md, "| 1 (12 I/O errors, continue_on_error) |")
}

// TestUnrecordableRunFailsStep: a run whose figures cannot be recorded
// (fio jobs whose IOPS sum past a float64; a command's result whose
// targets' TPS do) fails its step with the reason; before, the state file
// could not be written (json: unsupported value: +Inf) and the step
// stayed "started" (issue 54).
func TestUnrecordableRunFailsStep(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "bin", "fio")
	require.NoError(t, os.MkdirAll(filepath.Dir(fake), 0o755))
	job := `{\"jobname\":\"j\",\"error\":0,\"write\":{\"iops\":1.7e308,\"io_bytes\":1,\"io_kbytes\":0,\"bw_bytes\":1,\"total_ios\":1}}`
	require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\nfor a; do case $a in --output=*) printf '%s' \"{\\\"jobs\\\":["+job+","+job+"]}\" > \"${a#--output=}\";; esac; done\n"), 0o755))
	script := filepath.Join(dir, "bin", "twotargets")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\necho '{\"results\":[{\"tps\":1.7e308,\"transactions\":1},{\"tps\":1.7e308,\"transactions\":1}]}' > \"$WALAB_RESULT_JSON\"\n"), 0o755))
	for i, tc := range []struct{ plan, want string }{
		{string(fioPlan(fake + " --name=x")), "overflow when summed"},
		{"name: f\nruns:\n  - {name: w, duration: 1s, command: " + script + "}\n", "TPS"},
	} {
		out := filepath.Join(dir, "out"+string(rune('a'+i)))
		e, err := create([]byte(tc.plan), out)
		require.NoError(t, err)
		err = e.Execute(context.Background())
		require.ErrorContains(t, err, tc.want)
		st, err := state.Load(out)
		require.NoError(t, err)
		for id, s := range st.Steps {
			if strings.HasPrefix(id, "run/") || strings.Contains(id, "/r1") {
				require.Equal(t, state.StatusFailed, s.Status, "step %s", id)
				require.Contains(t, s.Error, tc.want)
			}
		}
		require.Empty(t, st.Runs, "nothing of it is counted")
	}
}
