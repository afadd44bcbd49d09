package check

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/fingerprint"
)

// TestPlacementObserved: with handles, the placement check's observation
// follows each target's namespace to the handles the drive's FDP events
// name for it: the baseline's targets must share a handle, the
// candidate's have one each; a namespace whose handle the events do not
// show fails it, saying why; without handles it says what it saw.
func TestPlacementObserved(t *testing.T) {
	base, cand := &plan.Run{Name: "baseline"}, &plan.Run{Name: "namespaces", Scenario: "namespaces"}
	c := plan.Check{Check: "placement", Expect: "on", Targets: []string{"mysql-1", "mysql-2"}, Handles: "run"}
	require.Empty(t, checkKinds["placement"].validate(nil, c))
	require.Equal(t, []string{`handles "both": want shared, separate or run (the run's scenario decides: baseline shared, others separate)`},
		checkKinds["placement"].validate(nil, plan.Check{Check: "placement", Expect: "on", Targets: c.Targets, Handles: "both"}))
	require.Equal(t, []string{"handles needs targets: the observation follows each target's datadir to its namespace"},
		checkKinds["placement"].validate(nil, plan.Check{Check: "placement", Expect: "on", Handles: "run"}))
	d := &fingerprint.Drive{NamespaceHandles: map[string][]int{"nvme0n1": {1}, "nvme0n2": {2}},
		NamespaceWritten: map[string]float64{"nvme0n1": 1 << 30, "nvme0n2": 1 << 29}}
	apart, together := []string{"/data/mysql-1/data", "/data2/mysql-2/data"}, []string{"/data/mysql-1/data", "/data/mysql-2/data"}

	got, err := judgeHandles(c, cand, apart, []string{"nvme0n1", "nvme0n2"}, d)
	require.NoError(t, err)
	require.Equal(t, "observed: mysql-1 (/data/mysql-1/data) on nvme0n1 → handle 1, mysql-2 (/data2/mysql-2/data) on nvme0n2 → handle 2; written since the drive started (its per-namespace SMART): nvme0n1 1024.0 MiB, nvme0n2 512.0 MiB; a handle each (scenario namespaces)", got)
	_, err = judgeHandles(c, base, apart, []string{"nvme0n1", "nvme0n2"}, d)
	require.ErrorContains(t, err, "the targets' writes reach no common reclaim unit handle where scenario baseline wants them on one")

	got, err = judgeHandles(c, base, together, []string{"nvme0n1", "nvme0n1"}, d)
	require.NoError(t, err)
	require.Contains(t, got, "mysql-2 (/data/mysql-2/data) on nvme0n1 → handle 1; written since")
	require.Contains(t, got, "; one handle shared (scenario baseline)")
	_, err = judgeHandles(c, cand, together, []string{"nvme0n1", "nvme0n1"}, d)
	require.ErrorContains(t, err, "the targets' writes share a reclaim unit handle where scenario namespaces wants one each")

	d.NamespaceHandles = map[string][]int{"nvme0n1": {1}}
	_, err = judgeHandles(c, cand, apart, []string{"nvme0n1", "nvme0n2"}, d)
	require.ErrorContains(t, err, "mysql-2 (/data2/mysql-2/data) on nvme0n2 → no handle in the FDP events log")
	require.ErrorContains(t, err, "not observed: the drive's FDP events name no handle for nvme0n2")
	c.Handles = ""
	got, err = judgeHandles(c, cand, apart, []string{"nvme0n1", "nvme0n2"}, d)
	require.NoError(t, err, "without handles it says what it saw")
	require.Contains(t, got, "nvme0n2 → no handle in the FDP events log")

	require.Equal(t, "nvme0n2", namespaceOf([]string{"sda", "nvme0n2"}, "nvme0"))
	require.Equal(t, "", namespaceOf([]string{"nvme10n1", "nvme0"}, "nvme1"), "nvme10n1 is no namespace of nvme1")
}
