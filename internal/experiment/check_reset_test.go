package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment/check"
	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
	"github.com/walab/walab/internal/fingerprint"
	"github.com/walab/walab/internal/hostapi"
)

// discardHost serves a database host whose /data is an 8 GiB filesystem
// on nvme0n1, with nvme0n1's discard counter as *discarded.
func discardHost(t *testing.T, discarded *atomic.Int64) string {
	size := uint64(8 << 30)
	facts := hostapi.Facts{Hostname: "dbhost", DataDirs: []string{"/data"},
		Processes: []hostapi.Process{{Name: "mariadbd", PID: 9, Dir: "/data/mysql-1/data", CPUs: "0", Mems: "0", NUMAPolicy: "interleave:0"}}, Mounts: []hostapi.Mount{{DataDir: "/data", MountPoint: "/data",
			Source: "/dev/nvme0n1", FSType: "xfs", Block: "nvme0n1", Stack: []string{"nvme0n1"}, Disks: []string{"nvme0n1"}, Controllers: []string{"nvme0"}, SizeBytes: &size}}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == hostapi.Path {
			_ = json.NewEncoder(w).Encode(facts)
			return
		}
		fmt.Fprintf(w, "walab_blockdev_discarded_bytes_total{device=\"nvme0n1\"} %d\nwalab_blockdev_discarded_bytes_total{device=\"nvme1n1\"} 0\n", discarded.Load())
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestDiscardCheck: the discard check passes when the disks under the
// data's filesystem discarded about its size since the reset began, and
// fails, saying so, when the reset's mkfs did not discard, or when there
// is no counter from before the reset.
func TestDiscardCheck(t *testing.T) {
	var discarded atomic.Int64
	discarded.Store(5 << 30)
	p := &plan.Plan{Exporter: discardHost(t, &discarded), Reset: []plan.Step{{Command: "mkfs.xfs -f /dev/nvme0n1"}}}
	e := &Executor{Plan: p, state: &state.State{}}
	c := plan.Check{Check: "discard", Path: "/data/mysql-1/data"}
	require.Empty(t, CheckKinds()["discard"](p, c))
	require.Equal(t, []string{"targets or path missing", "needs the plan's reset: it compares the discard counters from before the reset's first step",
		"needs the plan's exporter"}, CheckKinds()["discard"](&plan.Plan{}, plan.Check{Check: "discard"}))
	ctx := context.Background()

	e.setup = "baseline/"
	_, err := check.Run(ctx, e.checkEnv(), c, nil)
	require.ErrorContains(t, err, "no discard counters from before this run's reset")

	e.checkEnv().SnapshotDiscard(ctx, plan.Item{ID: "baseline/reset/2-mount", Phase: plan.PhaseReset})
	require.Empty(t, e.state.ResetDiscard, "only the first reset step takes the snapshot")
	e.checkEnv().SnapshotDiscard(ctx, plan.Item{ID: "baseline/reset/1-mkfs", Phase: plan.PhaseReset})
	require.Equal(t, float64(5<<30), e.state.ResetDiscard["baseline/"].Bytes["nvme0n1"])
	discarded.Add(8 << 30) // mkfs discarded the whole namespace
	got, err := check.Run(ctx, e.checkEnv(), c, nil)
	require.NoError(t, err)
	require.Equal(t, "/data/mysql-1/data on dbhost: reset discarded 8.00 GiB (nvme0n1 8.00 GiB) of a 8.00 GiB filesystem", got)

	e.checkEnv().SnapshotDiscard(ctx, plan.Item{ID: "streams/reset/1-mkfs", Phase: plan.PhaseReset})
	discarded.Add(64 << 20) // mkfs -K: only what the filesystem trimmed itself
	e.setup = "streams/"
	_, err = check.Run(ctx, e.checkEnv(), c, nil)
	require.ErrorContains(t, err, "reset discarded 0.06 GiB (nvme0n1 0.06 GiB) of a 8.00 GiB filesystem, less than 90% of it: the reset's mkfs did not discard the drive")

	require.Equal(t, "streams/c2/", check.SetupKey("streams/c2/reset/1"))
	require.Equal(t, "streams/c2/", check.SetupKey("streams/c2/checks"))
}

// TestFingerprintTreatment: a run's fingerprint records its placement
// switch (the between commands, the SHA-256 of the rule file they name, a
// word that is no file left out), the data identity and the discards its
// checks found, and the watched mysqld's CPU list and memory policy.
func TestFingerprintTreatment(t *testing.T) {
	rules := filepath.Join(t.TempDir(), "rule1.txt")
	require.NoError(t, os.WriteFile(rules, []byte("ibdata1 1\n"), 0o644))
	var discarded atomic.Int64
	url := discardHost(t, &discarded)
	p := &plan.Plan{Exporter: url, Reset: []plan.Step{{Command: "mkfs.xfs -f /dev/nvme0n1"}}}
	run := &plan.Run{Name: "streams", Between: []plan.Step{{Command: "echo astream -i /data/mysql-1/data -r " + rules + " missing.txt"}}}
	e := &Executor{Plan: p, state: &state.State{}, setup: "streams/"}
	e.state.Datasets = map[string]map[string]state.Dataset{"streams/": {"mysql-1": {Tables: 9, SHA256: strings.Repeat("ab", 32)}}}
	e.state.ResetDiscard = map[string]*state.DiscardSnapshot{"streams/": {Moved: map[string]float64{"nvme0n1": 8 << 30}}}
	f := newRunStep(e).fingerprint(context.Background(), plan.Item{ID: "streams/r1/run", Run: run}, "x-streams", "start", nil)
	require.Equal(t, []string{"on client: echo astream -i /data/mysql-1/data -r " + rules + " missing.txt"}, f.Treatment.Commands)
	sum := sha256.Sum256([]byte("ibdata1 1\n"))
	require.Equal(t, map[string]string{rules: hex.EncodeToString(sum[:])}, f.Treatment.Files)
	require.Equal(t, map[string]string{"mysql-1": "9 tables, sha256 " + strings.Repeat("ab", 32)}, f.Data)
	require.Equal(t, map[string]float64{"nvme0n1": 8 << 30}, f.ResetDiscardedBytes)
	require.Equal(t, []fingerprint.Process{{Name: "mariadbd", Dir: "/data/mysql-1/data", CPUs: "0", Mems: "0", NUMAPolicy: "interleave:0"}}, f.Host.Processes)
	flat := f.Flatten()
	require.Equal(t, "interleave:0", flat["host.processes.mariadbd /data/mysql-1/data.numa_policy"])
	require.Equal(t, hex.EncodeToString(sum[:]), flat["treatment.files."+rules])

	// Another run's checks: nothing of theirs is this run's.
	f = newRunStep(e).fingerprint(context.Background(), plan.Item{ID: "baseline/r1/run", Run: &plan.Run{Name: "baseline"}}, "x-baseline", "start", nil)
	require.Nil(t, f.Data)
	require.Nil(t, f.Treatment)
}

// TestPlacementSaysKernelHasNoPath: on an FDP drive under a kernel whose
// files get no write streams (Linux 6.12), the placement check says
// before the run that MySQL's writes reach no placement handle and
// placement comes only from the namespace layout.
func TestPlacementSaysKernelHasNoPath(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `walab_nvme_info{device="nvme0",firmware="1.0",model="QEMU NVMe Ctrl",serial="walabdb01",simulated="false",source="fdp"} 1
walab_nvme_fdp_enabled{device="nvme0"} 1
walab_nvme_fdp_reclaim_unit_handles{device="nvme0"} 4
walab_placement_hints_effective{device="nvme0",reason="no_write_streams"} 0
`)
	}))
	defer srv.Close()
	e := &Executor{Plan: &plan.Plan{Exporter: srv.URL, Device: "nvme0"}}
	got, err := check.Run(context.Background(), e.checkEnv(), plan.Check{Check: "placement", Expect: "on"}, &plan.Run{Name: "namespaces", Scenario: "namespaces"})
	require.NoError(t, err)
	require.Equal(t, "streams directive enabled=false, FDP enabled=true: on (scenario namespaces expects on); no file write reaches an FDP placement handle on this kernel (no_write_streams): MySQL's writes go to their namespace's default handle, so placement comes only from the namespace layout", got)
	f := newRunStep(e).fingerprint(context.Background(), plan.Item{Run: &plan.Run{Name: "namespaces"}}, "x", "start", nil)
	require.Equal(t, map[string]float64{"reclaim_unit_handles": 4}, f.Drive.FDPConfig)
	require.Equal(t, "no_write_streams", f.Drive.Hints)
}

// TestPlacementReportsFileClasses: with walab's filesystem's device
// backend writing the FDP drive (docs/placement-files.md), the placement
// check names its policy and the handles each file class's bytes carried,
// instead of the kernel's missing path.
func TestPlacementReportsFileClasses(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `walab_nvme_info{device="nvme0",firmware="1.0",model="QEMU NVMe Ctrl",serial="walabff01",simulated="false",source="fdp"} 1
walab_nvme_fdp_enabled{device="nvme0"} 1
walab_placement_hints_effective{device="nvme0",reason="no_write_streams"} 0
walab_simfs_device_info{device="nvmesim0",namespace="/dev/nvme0n1",policy="classes: redo=1 doublewrite=2 data=3 undo=0 binlog=0 system=4 other=0"} 1
walab_simfs_device_written_bytes_total{class="redo",device="nvmesim0",handle="1",namespace="/dev/nvme0n1"} 8192
walab_simfs_device_written_bytes_total{class="data",device="nvmesim0",handle="3",namespace="/dev/nvme0n1"} 65536
`)
	}))
	defer srv.Close()
	e := &Executor{Plan: &plan.Plan{Exporter: srv.URL, Device: "nvme0"}}
	got, err := check.Run(context.Background(), e.checkEnv(), plan.Check{Check: "placement", Expect: "on"}, &plan.Run{Name: "handles-per-class", Scenario: "fdp-files"})
	require.NoError(t, err)
	require.Equal(t, "streams directive enabled=false, FDP enabled=true: on (scenario fdp-files expects on); files placed by walab's filesystem "+
		"(classes: redo=1 doublewrite=2 data=3 undo=0 binlog=0 system=4 other=0): data on [3], redo on [1]", got)
	f := newRunStep(e).fingerprint(context.Background(), plan.Item{Run: &plan.Run{Name: "handles-per-class"}}, "x", "start", nil)
	require.Equal(t, map[string][]int{"redo": {1}, "data": {3}}, f.Drive.FileClassHandles, "recorded in the fingerprint")
}
