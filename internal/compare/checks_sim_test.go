package compare

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestChecksOnSimulatedDrive: make run's verdict listed three checks as
// unknown that the simulated drive can never answer (fill at start: no
// filesystem; no md sync: no block device): they are not run there, and
// stay unknown on a real drive without the data. The placement check names
// who counted the placement ids: the simulator, not a BPF trace.
func TestChecksOnSimulatedDrive(t *testing.T) {
	share := func(v float64) *float64 { return &v }
	for _, sim := range []bool{true, false} {
		b := RunFacts{Simulated: sim, PlacedShare: share(0)}
		c := RunFacts{Simulated: sim, PlacedShare: share(0.9)}
		j := &judgement{r: &Result{Facts: [2]RunFacts{b, c}}, o: Options{Checks: CheckOptions{}.withDefaults()}, unit: "round", b: b, c: c}
		checkFillAtStart(j)
		checkMDSync(j)
		checkPlacement(j)
		got := map[string]Check{}
		for _, ch := range j.v.Checks {
			got[ch.Name] = ch
		}
		placed := got["placement (observed)"]
		require.Equal(t, Pass, placed.Status)
		if sim {
			require.Len(t, got, 1, "only the placement check runs: %v", j.v.Checks)
			require.Contains(t, placed.Detail, "counted by the simulated drive itself")
			require.NotContains(t, placed.Detail, "nvme_setup_cmd")
			continue
		}
		require.Equal(t, Unknown, got["fill at start"].Status)
		require.Equal(t, Unknown, got["baseline no md sync"].Status)
		require.Equal(t, Unknown, got["candidate no md sync"].Status)
		require.True(t, strings.HasSuffix(placed.Detail, "(per command, BPF on nvme:nvme_setup_cmd)"), placed.Detail)
	}
}

// TestRoundHeading: the per-round tables headed their first column "hour"
// whatever the round (make run's rounds are 10 s); the heading is the
// round's name, and the run's line names a round that is not an hour.
func TestRoundHeading(t *testing.T) {
	hs := []Hour{{Hour: 1, NANDBytes: 3 * MiB, HostBytes: 2 * MiB}}
	for _, tc := range []struct {
		round          time.Duration
		heading, runAt string
	}{{time.Hour, "hour      NAND_MB", ""}, {10 * time.Second, "round      NAND_MB", ", rounds of 10s"}} {
		var txt, arr bytes.Buffer
		require.NoError(t, WriteText(&txt, hs, roundName(tc.round)))
		require.NoError(t, WriteArrayText(&arr, hs, roundName(tc.round)))
		require.True(t, strings.HasPrefix(txt.String(), tc.heading), txt.String())
		require.True(t, strings.HasPrefix(arr.String(), strings.Fields(tc.heading)[0]+" "), arr.String())
		require.Equal(t, tc.runAt, roundLength(tc.round))
	}
}

// TestSameDriveOneIdentity: 200,000 serials for one device passed "same
// drive" (the serials, joined, were equal in both runs). More identities
// than devices fail the check.
func TestSameDriveOneIdentity(t *testing.T) {
	one := RunFacts{Serial: "S1", Firmware: "F1"}
	many := RunFacts{Serial: "S1", Firmware: "F1", Identities: 200000}
	for _, tc := range []struct {
		b, c RunFacts
		want string
	}{{one, one, Pass}, {many, many, Fail}, {one, many, Fail}} {
		j := &judgement{r: &Result{}, b: tc.b, c: tc.c}
		checkSameDrive(j)
		require.Len(t, j.v.Checks, 1)
		require.Equal(t, tc.want, j.v.Checks[0].Status, j.v.Checks[0].Detail)
	}
}

// TestNamespacePlacement: with FDP on in both arms the state cannot tell
// them apart, and with placement by namespace each namespace's own write
// counter can: the candidate must send at least NamespaceMinShare of its
// bytes outside its busiest namespace, the baseline at most
// BaselineMaxShare. With the baseline's FDP off, the inferred check
// stays (its namespaces say nothing of a treatment it lacks).
func TestNamespacePlacement(t *testing.T) {
	share := func(v float64) *float64 { return &v }
	on, off := true, false
	judge := func(b, c RunFacts) Check {
		j := &judgement{r: &Result{Facts: [2]RunFacts{b, c}}, o: Options{Checks: CheckOptions{}.withDefaults()}, unit: "round", b: b, c: c}
		checkPlacement(j)
		require.Len(t, j.v.Checks, 1)
		return j.v.Checks[0]
	}
	got := judge(RunFacts{Placement: &on, NamespaceShare: share(0.001)}, RunFacts{Placement: &on, NamespaceShare: share(0.46)})
	require.Equal(t, Check{Name: "placement (observed)", Status: Pass,
		Detail: "46.0% of the candidate's and 0.1% of the baseline's write bytes went outside the busiest namespace (each namespace's own SMART log: placement by namespace)"}, got)
	got = judge(RunFacts{Placement: &on, NamespaceShare: share(0)}, RunFacts{Placement: &on, NamespaceShare: share(0.02)})
	require.Equal(t, Fail, got.Status)
	require.Contains(t, got.Detail, "only 2.0% of the candidate's write bytes went outside its busiest namespace (at least 20% wanted)")
	got = judge(RunFacts{Placement: &on, NamespaceShare: share(0.4)}, RunFacts{Placement: &on, NamespaceShare: share(0.45)})
	require.Equal(t, Fail, got.Status)
	require.Contains(t, got.Detail, "40.0% of the baseline's write bytes went outside its busiest namespace (at most 5%): it is no baseline")
	got = judge(RunFacts{Placement: &off, NamespaceShare: share(0)}, RunFacts{Placement: &on, NamespaceShare: share(0)})
	require.Equal(t, Check{Name: "placement (inferred)", Status: Pass, Detail: "baseline off, candidate on (directive state; not per-command proof)"}, got)
}

// TestWASourceCheck: on the simulated drive the verdict says where its
// host writes came from (a database through the drive's filesystem, or
// the synthetic workload), and fails runs fed differently or a filesystem
// that stopped serving mid-run; a real drive gets no such line.
func TestWASourceCheck(t *testing.T) {
	one, zero := 1.0, 0.0
	for _, tc := range []struct {
		sim        bool
		b, c       *float64
		want, text string
	}{
		{true, &one, &one, Pass, "the database's own writes through the simulated drive's filesystem"},
		{true, nil, nil, Pass, "synthetic workload in both runs"},
		{true, &one, nil, Fail, "the other's by the synthetic workload"},
		{true, &one, &zero, Fail, "stopped serving during a run"},
		{false, nil, nil, "", ""},
	} {
		b, c := RunFacts{Simulated: tc.sim, FSServing: tc.b}, RunFacts{Simulated: tc.sim, FSServing: tc.c}
		j := &judgement{r: &Result{}, b: b, c: c}
		checkWASource(j)
		if tc.want == "" {
			require.Empty(t, j.v.Checks)
			continue
		}
		require.Len(t, j.v.Checks, 1)
		require.Equal(t, "WA source", j.v.Checks[0].Name)
		require.Equal(t, tc.want, j.v.Checks[0].Status, j.v.Checks[0].Detail)
		require.Contains(t, j.v.Checks[0].Detail, tc.text)
		require.Equal(t, tc.want == Fail, len(j.v.Reasons) == 1)
	}
}
