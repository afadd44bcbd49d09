package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
	"github.com/walab/walab/internal/fingerprint"
	"github.com/walab/walab/internal/runner"
)

// One run item: the workload between two fingerprints, and its record.

// run executes one run item: fingerprint, the workload, fingerprint, and
// the record of the run.
func (rs *runStep) run(ctx context.Context, i int, it plan.Item, st *state.StepState, logPath string) (*state.RunRecord, error) {
	runID := rs.plan.RunID(it, st.Attempts)
	dir := filepath.Join("runs", runID)
	abs := filepath.Join(rs.out, dir)
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, err
	}
	resultJSON := filepath.Join(abs, "result.json")
	argv, err := rs.plan.Argv(it, st.Attempts, resultJSON)
	if err != nil {
		return nil, err
	}
	fpStart := rs.fingerprint(ctx, it, runID, "start", argv)
	rs.recordTool(ctx, it.Run, fpStart)
	if err := state.WriteJSON(filepath.Join(abs, "fingerprint-start.json"), fpStart); err != nil {
		return nil, err
	}
	rs.metrics.fingerprint(rs.plan, runID, it, fpStart)
	tick := func(elapsed time.Duration) {
		wa := ""
		if d, err := fingerprint.ReadDrive(ctx, httpClient(rs.http), rs.plan.Exporter, rs.plan.Device); rs.plan.Exporter != "" && d != nil && err == nil && d.WA1h != nil {
			wa = fmt.Sprintf(" · WA(1h) %.3f", *d.WA1h)
			rs.metrics.setWA(*d.WA1h)
		}
		left := timeLeft(rs.items, rs.journal.Steps, i, elapsed)
		rs.metrics.setLeft(left)
		rs.printf("[run] %s: %s of %s%s%s", runID, elapsed.Round(time.Second), it.Expected, leftNote(left), wa)
	}
	var fw *fioWatch
	endSpan := func() {}
	if it.Run.Fio != "" {
		if fw, err = fioBefore(it.Run); err != nil {
			return nil, fmt.Errorf("run %s: %w", runID, err)
		}
		endSpan = rs.metrics.runSpan(rs.plan, it, runID)
	}
	watch, stop, err := rs.untilSteady(ctx, it.Run)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", runID, err)
	}
	profile := rs.startProfile(ctx, it, abs, dir)
	start, end, _, err := rs.proc.command(ctx, it, st.Attempts, argv, rs.proc.env(it, st.Attempts, resultJSON), logPath, 0, stop, tick)
	endSpan()
	prof := profile()
	if err != nil {
		return nil, err
	}
	fpEnd, err := rs.endOfRun(ctx, it, runID, abs, argv, fpStart)
	if err != nil {
		return nil, err
	}
	rec := &state.RunRecord{Step: it.ID, Run: it.Run.Name, Scenario: it.Run.ScenarioLabel(), RunID: runID,
		Threads: it.Threads, Rep: it.Rep, Attempt: st.Attempts, Start: start, End: end, Dir: dir,
		WA: fingerprint.WA(fpStart, fpEnd), Drift: fingerprint.Diff(fpStart, fpEnd), Profile: prof}
	rs.noteSteady(rec, watch)
	if fpStart.Drive != nil && fpEnd.Drive != nil {
		rec.HostBytes = fingerprint.Delta(fpStart.Drive.HostWrittenBytes, fpEnd.Drive.HostWrittenBytes)
		rec.MediaBytes = fingerprint.Delta(fpStart.Drive.MediaWrittenBytes, fpEnd.Drive.MediaWrittenBytes)
	}
	if fw != nil {
		if rec.Fio, err = fw.after(abs, dir, start, end); err != nil {
			return nil, fmt.Errorf("run %s: %w", runID, err)
		}
	}
	if err := readResult(resultJSON, rec); err != nil {
		if it.Run.Workload != "" || !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("run %s: result: %w", runID, err)
		}
	}
	return rec, nil
}

// endOfRun takes the run's end fingerprint and writes it; a run whose end
// fingerprint lost what its start read, or whose drive was disturbed
// between the two, is an error: it is not counted.
func (rs *runStep) endOfRun(ctx context.Context, it plan.Item, runID, abs string, argv []string, fpStart *fingerprint.Fingerprint) (*fingerprint.Fingerprint, error) {
	fpEnd, lost := endFingerprint(ctx, fpStart, func() *fingerprint.Fingerprint { return rs.fingerprint(ctx, it, runID, "end", argv) })
	rs.recordTool(ctx, it.Run, fpEnd)
	if err := state.WriteJSON(filepath.Join(abs, "fingerprint-end.json"), fpEnd); err != nil {
		return nil, err
	}
	if len(lost) > 0 {
		why := strings.Join(fpEnd.Errors, "; ")
		if why == "" {
			why = "the exporter answered without them"
		}
		return nil, fmt.Errorf("run %s: the end fingerprint could not read %s in %d tries (%s): the run's WA and drift are unknown, so it is not counted; resume runs it again",
			runID, strings.Join(lost, ", "), endFingerprintTries, why)
	}
	if why := fingerprint.Disturbed(fpStart, fpEnd); len(why) > 0 {
		return nil, fmt.Errorf("run %s: %s: its WA is not the workload's, so it is not counted; resume runs it again",
			runID, strings.Join(why, "; "))
	}
	return fpEnd, nil
}

// addCarry adds b to a, and counts a wrap in carry.
func addCarry(a, b, carry uint64) (uint64, uint64) {
	v, c := bits.Add64(a, b, 0)
	return v, carry + c
}

// readResult sums loadgen's per-target results into the record.
func readResult(path string, rec *state.RunRecord) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc struct {
		Results []*runner.Result `json:"results"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(doc.Results) == 0 {
		return fmt.Errorf("%s: no results", path)
	}
	var tps, tpmC, tpmT, p95, wiops float64
	var txn, errs uint64
	var wrapped, wrapped2 uint64
	for _, r := range doc.Results {
		if r.IO && r.TotalSeconds > 0 {
			wiops += float64(r.Writes) / r.TotalSeconds
		}
		tps += r.TPS
		tpmC += r.TpmC
		tpmT += r.TpmTotal
		txn, wrapped = addCarry(txn, r.Transactions, wrapped)
		errs, wrapped2 = addCarry(errs, r.Errors, wrapped2)
		p95 = max(p95, r.All.LatP95Ms)
	}
	for _, x := range []float64{tps, tpmC, tpmT, p95} {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return fmt.Errorf("%s: the targets' TPS, tpmC or p95 latency sum past what a 64-bit number holds: not a result walab records", path)
		}
	}
	if wrapped+wrapped2 > 0 {
		return fmt.Errorf("%s: the targets' transaction or error counts sum past what a 64-bit number holds: not a result walab records", path)
	}
	rec.TPS, rec.Transactions, rec.Errors, rec.P95Ms = &tps, &txn, &errs, &p95
	if doc.Results[0].IO {
		rec.WriteIOPS = &wiops
	}
	if doc.Results[0].NewOrderType != "" {
		rec.TpmC, rec.TpmTotal = &tpmC, &tpmT
	}
	return nil
}

// recordTool adds the version of the program a command: or fio: run
// starts to the fingerprint's tools (absent when walab cannot ask it).
func (rs *runStep) recordTool(ctx context.Context, r *plan.Run, f *fingerprint.Fingerprint) {
	if r == nil {
		return
	}
	tool := runTool(r)
	if tool == "" {
		return
	}
	if v := rs.tools.version(ctx, tool); v != "" {
		if f.Tools == nil {
			f.Tools = map[string]string{}
		}
		f.Tools[filepath.Base(tool)] = v
	}
}

// fingerprint takes a run's fingerprint; what cannot be read is named in
// its Errors, never filled in.
func (rs *runStep) fingerprint(ctx context.Context, it plan.Item, runID, point string, argv []string) *fingerprint.Fingerprint {
	f := &fingerprint.Fingerprint{Schema: fingerprint.Schema, Run: runID, Point: point, Taken: time.Now().UTC(), Loadgen: rs.redact.argv(argv),
		Treatment: rs.treatment(ctx, it.Run)}
	resetFacts(rs.journal, rs.setup, f, it)
	if rs.plan.Exporter != "" {
		d, err := fingerprint.ReadDrive(ctx, httpClient(rs.http), rs.plan.Exporter, rs.plan.Device)
		f.Drive = d
		if err != nil {
			f.Errors = append(f.Errors, "drive: "+err.Error())
		}
		if err := fingerprint.ReadPerDevice(ctx, httpClient(rs.http), rs.plan.Exporter, f); err != nil {
			f.Errors = append(f.Errors, "every drive and I/O size: "+err.Error())
		}
	}
	var dirs []string
	for _, t := range rs.plan.Targets {
		m := fingerprint.QueryMySQL(ctx, t.Name, t.DSN)
		f.MySQL = append(f.MySQL, m)
		if m.Error != "" {
			f.Errors = append(f.Errors, "mysql "+t.Name+": "+m.Error)
		}
		if d := m.Variables["datadir"]; d != "" {
			dirs = append(dirs, d)
		}
	}
	h, facts, errs := fingerprint.ReadHost(ctx, httpClient(rs.http), rs.plan.Exporter, dirs)
	f.Host, f.Tools = h, fingerprint.Tools(facts)
	if rs.plan.UsesLoadgen() {
		if v := rs.tools.loadgen(ctx, rs.plan.LoadgenBin()); v != "" {
			f.Tools["loadgen"] = v
		}
	}
	f.Errors = append(f.Errors, errs...)
	return f
}

// resetFacts copies what the run's checks found after its reset into the
// fingerprint: each target's data identity and the disks' discards. Only
// the set-up whose checks ran in this process (setup) is known: after a
// resume they are absent, never guessed.
func resetFacts(st *state.State, setup string, f *fingerprint.Fingerprint, it plan.Item) {
	if it.Run == nil || !strings.HasPrefix(setup, it.Run.Name+"/") {
		return
	}
	for name, d := range st.Datasets[setup] {
		if f.Data == nil {
			f.Data = map[string]string{}
		}
		f.Data[name] = fmt.Sprintf("%d tables, sha256 %s", d.Tables, d.SHA256)
	}
	if snap := st.ResetDiscard[setup]; snap != nil && snap.Moved != nil {
		f.ResetDiscardedBytes = snap.Moved
	}
}

// endFingerprintTries is how often a run's end fingerprint is taken while
// it lacks something the start read: one scrape can miss a drive whose
// sampler just called a reading a glitch, or a target busy past its
// timeout, and that alone must not fail a run of hours.
const endFingerprintTries = 5

// endFingerprintWait is the pause between those tries.
var endFingerprintWait = 2 * time.Second

// endFingerprint takes the end fingerprint until it reads everything the
// start read (fingerprint.Lost is empty) or endFingerprintTries are used;
// it returns the last one and what it still lacks.
func endFingerprint(ctx context.Context, start *fingerprint.Fingerprint, take func() *fingerprint.Fingerprint) (*fingerprint.Fingerprint, []string) {
	for try := 1; ; try++ {
		f := take()
		lost := fingerprint.Lost(start, f)
		if len(lost) == 0 || try == endFingerprintTries {
			return f, lost
		}
		select {
		case <-ctx.Done():
			return f, lost
		case <-time.After(endFingerprintWait):
		}
	}
}
