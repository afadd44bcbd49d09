// Package state owns an experiment's journal: the state file that records
// every step's progress, the counted runs, the checks' outcomes and the
// verdict (State and its records), read and written whole, atomically, so
// that a crash leaves the old or the new record and resume continues from
// it; and the atomic file writes the experiment's other outputs use.
package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/fingerprint"
	"github.com/walab/walab/internal/hotspots"
)

// StateFile is the executor's record in the output directory; PlanFile is
// the copy of the plan that resume runs.
const (
	StateFile = "walab-experiment.json"
	PlanFile  = "plan.yml"
	Magic     = "walab-experiment-state/v1" // State.Magic of this format
)

// Step states.
const (
	StatusStarted = "started" // begun, not finished: interrupted if found on resume
	StatusDone    = "done"
	StatusFailed  = "failed"
	StatusSkipped = "skipped" // resume --skip: the user says it is done
	StatusAgain   = "again"   // done, to run again before its run's retry (freshSetup)
)

// State is what the executor has done, written atomically after every change.
type State struct {
	Magic      string `json:"walab_experiment"`
	Plan       string `json:"plan"`
	PlanSHA256 string `json:"plan_sha256"`
	// ExpandedSHA256 is of the plan with ${NAME} expanded and secrets
	// redacted: resume refuses an environment that changes the plan.
	ExpandedSHA256 string `json:"expanded_plan_sha256,omitempty"`
	// Settings are the values the caller gave as values, not plan text
	// (walab lab's round and run length): resume loads the plan with them.
	Settings plan.Settings         `json:"settings,omitzero"`
	Created  time.Time             `json:"created"`
	Steps    map[string]*StepState `json:"steps"`
	Runs     []RunRecord           `json:"runs"`
	Checks   []CheckResult         `json:"checks"`
	Compare  *CompareRecord        `json:"compare,omitempty"`
	// ResetDiscard are the discard counters before each run's reset, by
	// set-up (check_discard.go); Datasets the identity of the data each
	// run's checks found, by set-up and target (check_same_data.go).
	ResetDiscard map[string]*DiscardSnapshot   `json:"reset_discard,omitempty"`
	Datasets     map[string]map[string]Dataset `json:"datasets,omitempty"`
	// DriveData is what each set-up's checks found on the drive's data
	// filesystems: used bytes by path (check_drive_data.go).
	DriveData map[string]map[string]uint64 `json:"drive_data,omitempty"`
	Finished  *time.Time                   `json:"finished,omitempty"`
}

// StepState is one item's progress.
type StepState struct {
	Status   string    `json:"status"`
	Attempts int       `json:"attempts"`
	Start    time.Time `json:"start"`
	End      time.Time `json:"end,omitzero"`
	Log      string    `json:"log,omitempty"`
	Error    string    `json:"error,omitempty"`
	Note     string    `json:"note,omitempty"`
	// Group is the process group of the step's command, recorded before
	// it starts (procgroup.go).
	Group *ProcGroup `json:"process_group,omitempty"`
	// Remote is the session of a remote step's command on its host, as
	// its guard reported it (remote_session.go); resume ends it.
	Remote *RemoteSession `json:"remote_session,omitempty"`
}

// RunRecord is one counted run: recorded in the same state write that marks
// its step done, so a run is counted once or not at all.
type RunRecord struct {
	Step     string    `json:"step"`
	Run      string    `json:"run"`
	Scenario string    `json:"scenario"`
	RunID    string    `json:"run_id"`
	Threads  int       `json:"threads,omitempty"`
	Rep      int       `json:"repetition"`
	Attempt  int       `json:"attempt"`
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	Dir      string    `json:"dir"` // under the output directory
	// UntilSteady, for a run with until_steady, says how it ended: "WA
	// held for 5 rounds: ..." or "not steady: ..."; empty without it.
	UntilSteady string `json:"until_steady,omitempty"`
	// From loadgen's result JSON (summed over targets); nil when the run
	// wrote none (an external command that does not report).
	TPS          *float64 `json:"tps,omitempty"`
	TpmC         *float64 `json:"tpmC,omitempty"`
	TpmTotal     *float64 `json:"tpmTOTAL,omitempty"`
	Transactions *uint64  `json:"transactions,omitempty"`
	Errors       *uint64  `json:"errors,omitempty"`
	P95Ms        *float64 `json:"latency_p95_ms_max,omitempty"`
	// WriteIOPS is an I/O workload's (loadgen fileio) write requests per
	// second, summed over targets: its fsyncs are not I/Os of the disk's
	// IOPS (TPS counts them as events).
	WriteIOPS *float64 `json:"write_iops,omitempty"`
	// From the drive's counters at start and end (fingerprints).
	HostBytes  *float64             `json:"host_written_bytes,omitempty"`
	MediaBytes *float64             `json:"media_written_bytes,omitempty"`
	WA         *float64             `json:"write_amplification,omitempty"`
	Drift      []fingerprint.Change `json:"drift,omitempty"` // start vs end of the run

	Fio *FioRecord `json:"fio,omitempty"` // a fio run's figures (fio_run.go)
	// Profile is the run's CPU profile (plan key profile; the executor's
	// profile.go).
	Profile *hotspots.Record `json:"profile,omitempty"`
}

// CheckResult is one pre-run check's outcome.
type CheckResult struct {
	Run    string    `json:"run"`
	Check  string    `json:"check"`
	Status string    `json:"status"` // pass, fail, warn
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// CompareRecord is the compare phase's outcome.
type CompareRecord struct {
	Baseline, Candidate string
	Text                string   `json:"text"`            // walab compare's output
	Error               string   `json:"error"`           // why there is no verdict
	Valid               *bool    `json:"valid,omitempty"` // the verdict: VALID or NOT VALID
	Drift               []string `json:"drift,omitempty"`
	// Rounds is the verdict's throughput: over the compared rounds.
	Rounds *RoundsThroughput `json:"rounds,omitempty"`
}

// Load reads the state in the experiment directory dir; a file that is
// not walab's state is refused.
func Load(dir string) (*State, error) {
	path := filepath.Join(dir, StateFile)
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no experiment state here (start one with walab experiment run)", dir)
		}
		return nil, err
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil || st.Magic != Magic {
		return nil, fmt.Errorf("%s is not a walab experiment state file (%v): walab will not touch it", path, err)
	}
	if st.Steps == nil {
		st.Steps = map[string]*StepState{}
	}
	return &st, nil
}

// Save writes st into the experiment directory dir, atomically.
func Save(dir string, st *State) error { return WriteJSON(filepath.Join(dir, StateFile), st) }

// WriteAtomic replaces path with data through a temporary file and a
// rename, so a crash leaves the old or the new content, never a mix; the
// file is not readable by others (a log or report may name hosts). It
// refuses to replace anything but a regular file: a symlink, FIFO or
// directory there is not walab's.
func WriteAtomic(path string, data []byte) error { return WriteAtomicMode(path, data, 0o640) }

// WriteAtomicMode is WriteAtomic with the file's permissions.
func WriteAtomicMode(path string, data []byte, mode os.FileMode) error {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s exists and is not a regular file (%s): walab will not replace it", path, fi.Mode().Type())
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Chmod(tmp, mode); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// WriteJSON writes v as indented JSON, atomically.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteAtomic(path, append(b, '\n'))
}

// ReadFingerprint reads a counted run's fingerprint at point ("start",
// "end") from its directory under the experiment directory out.
func ReadFingerprint(out string, rec *RunRecord, point string) (*fingerprint.Fingerprint, error) {
	b, err := os.ReadFile(filepath.Join(out, rec.Dir, "fingerprint-"+point+".json"))
	if err != nil {
		return nil, err
	}
	var f fingerprint.Fingerprint
	return &f, json.Unmarshal(b, &f)
}
