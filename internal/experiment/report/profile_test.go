package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
	"github.com/walab/walab/internal/fingerprint"
	"github.com/walab/walab/internal/hotspots"
)

// TestReportProfiles: the report's CPU profile section puts each run's
// functions beside the knobs of its start fingerprint and its tpmTOTAL,
// and says why a run has no profile.
func TestReportProfiles(t *testing.T) {
	out := t.TempDir()
	runs := []state.RunRecord{{RunID: "spin-delay4-r1", Dir: "runs/spin-delay4-r1"}, {RunID: "spin-delay48-r1", Dir: "runs/spin-delay48-r1"}, {RunID: "spin-x-r1", Dir: "runs/spin-x-r1"}}
	for i, delay := range []string{"4", "48"} {
		f := fingerprint.Fingerprint{MySQL: []fingerprint.MySQL{{Target: "db", Variables: map[string]string{"innodb_spin_wait_delay": delay, "innodb_sync_spin_loops": "30"}}}}
		require.NoError(t, os.MkdirAll(filepath.Join(out, runs[i].Dir), 0o755))
		require.NoError(t, state.WriteJSON(filepath.Join(out, runs[i].Dir, "fingerprint-start.json"), f))
	}
	tpm1, tpm2 := 30000.0, 36000.0
	runs[0].TpmTotal, runs[1].TpmTotal = &tpm1, &tpm2
	runs[0].Profile = &hotspots.Record{File: "runs/spin-delay4-r1/profile.pb.gz", Total: 100, Top: []hotspots.Func{{Function: "0x6a9ff8", Module: "mariadbd", Samples: 60}, {Function: "native_queued_spin_lock_slowpath", Module: "kernel", Samples: 20}}}
	runs[1].Profile = &hotspots.Record{Total: 100, Top: []hotspots.Func{{Function: "row_search_mvcc", Module: "mariadbd", Samples: 30}, {Function: "0x6a9ff8", Module: "mariadbd", Samples: 10}}}
	runs[2].Profile = &hotspots.Record{Error: "cpu profile: 404 Not Found: the profile collector is off"}
	in := &Input{Plan: &plan.Plan{Profile: plan.Duration(30e9)}, State: &state.State{Runs: runs}, Out: out}
	var b strings.Builder
	in.reportProfiles(&b)
	want := "| innodb_spin_wait_delay | 4 | 48 | — |\n" +
		"| innodb_sync_spin_loops | 30 | 30 | — |\n" +
		"| tpmTOTAL | 30000 | 36000 | — |\n" +
		"| CPU samples | 100 | 100 | — |\n" +
		"| 0x6a9ff8 (mariadbd) | 60.0 % | 10.0 % | — |\n" +
		"| row_search_mvcc (mariadbd) | ≤ 20.0 % | 30.0 % | — |\n" +
		"| native_queued_spin_lock_slowpath (kernel) | 20.0 % | ≤ 10.0 % | — |\n"
	require.Contains(t, b.String(), want)
	require.Contains(t, b.String(), "- spin-x-r1: cpu profile: 404 Not Found: the profile collector is off\n")

	in.Plan.Profile = 0
	b.Reset()
	in.reportProfiles(&b)
	require.Empty(t, b.String(), "no section for a plan without profile:")
}
