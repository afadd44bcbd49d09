package wa

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/probe"
	"github.com/walab/walab/internal/nvme/replay"
	"github.com/walab/walab/internal/nvme/replay/fixture"
)

func TestFromPollers(t *testing.T) {
	root := t.TempDir()
	drives := map[string]fixture.Drive{"nvme0": fixture.OCPDrive(), "nvme1": fixture.SMARTOnlyDrive(), "nvme2": fixture.Seed000Drive()}
	var pollers []*probe.Poller
	for _, name := range []string{"nvme0", "nvme1", "nvme2"} {
		dir := filepath.Join(root, name)
		require.NoError(t, drives[name].Write(dir))
		pollers = append(pollers, probe.NewPoller(admin.New(name, replay.NewBackend(dir)), []uint32{1}, probe.Config{}, probe.Options{MaxAge: -1}))
	}
	r := FromPollers(pollers, 0)
	got, err := r.ReadCounters(context.Background())
	require.NoError(t, err)
	require.Equal(t, map[string]Counters{
		"nvme0": {HostBytes: 2_000_000 * 512000, MediaBytes: 2_048_000_000_000, Source: probe.SourceOCP, OK: true},
		"nvme2": {HostBytes: 250_000_000 * 4096, MediaBytes: 375_000_000 * 4096, Source: "seed000_c0", OK: true},
	}, got, "the SMART-only drive has no WA and is left out")

	// nvme0's NAND page fails: present with OK false (WA absent, history
	// kept), not left out as if it had no source.
	require.NoError(t, os.Rename(filepath.Join(root, "nvme0", "log-c0.bin"), filepath.Join(root, "c0.saved")))
	got, err = r.ReadCounters(context.Background())
	require.NoError(t, err)
	require.Contains(t, got, "nvme0")
	require.False(t, got["nvme0"].OK)
	require.NoError(t, os.Rename(filepath.Join(root, "c0.saved"), filepath.Join(root, "nvme0", "log-c0.bin")))

	require.NoError(t, os.RemoveAll(filepath.Join(root, "nvme2")))
	got, err = r.ReadCounters(context.Background())
	require.NoError(t, err)
	require.False(t, got["nvme2"].OK, "a failed device is present with OK false")
	require.ErrorContains(t, got["nvme2"].Err, "nvme2", "and says why")
	require.True(t, got["nvme0"].OK)
}

// hangingBackend blocks every command until released, as a controller that
// stopped answering does (the kernel's admin timeout is 10 s or more).
type hangingBackend struct{ release chan struct{} }

func (h hangingBackend) Exec(context.Context, admin.Command) (admin.Result, error) {
	<-h.release
	return admin.Result{}, errors.New("released")
}
func (hangingBackend) Close() error { return nil }

// TestFromPollersHungDevice: one hung controller costs its own reading (OK
// false, a timeout counted), not the healthy device's, and the round ends
// at the deadline.
func TestFromPollersHungDevice(t *testing.T) {
	hang := hangingBackend{release: make(chan struct{})}
	defer close(hang.release)
	dir := filepath.Join(t.TempDir(), "nvme1")
	require.NoError(t, fixture.OCPDrive().Write(dir))
	hung := probe.NewPoller(admin.New("nvme0", hang), []uint32{1}, probe.Config{}, probe.Options{MaxAge: -1})
	ok := probe.NewPoller(admin.New("nvme1", replay.NewBackend(dir)), []uint32{1}, probe.Config{}, probe.Options{MaxAge: -1})
	r := FromPollers([]*probe.Poller{hung, ok}, 100*time.Millisecond)
	for range 2 {
		got, err := r.ReadCounters(context.Background())
		require.NoError(t, err)
		require.True(t, got["nvme1"].OK, "the healthy device is read")
		require.Contains(t, got, "nvme0")
		require.False(t, got["nvme0"].OK, "the hung device is skipped this round, its history kept")
	}
	require.EqualValues(t, 2, hung.Timeouts())
	require.Zero(t, ok.Timeouts())
}

// TestFromPollersEmptiedPage: a NAND page emptied or truncated mid-write is
// the source down (OK false, history kept), never counters at zero with
// the source up (issue 33 item 5), and the run survives it unchanged.
func TestFromPollersEmptiedPage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nvme0")
	require.NoError(t, fixture.Seed000Drive().Write(dir))
	page := filepath.Join(dir, "log-c0.bin")
	good, err := os.ReadFile(page)
	require.NoError(t, err)
	p := probe.NewPoller(admin.New("nvme0", replay.NewBackend(dir)), []uint32{1}, probe.Config{}, probe.Options{MaxAge: -1})
	r := FromPollers([]*probe.Poller{p}, 0)
	s, _ := newTestSampler(t, r, Options{})
	ctx := context.Background()
	require.NoError(t, s.Sample(ctx, t0))
	before, _ := windowsOf(t, s, "nvme0")

	for i, b := range [][]byte{nil, good[:len(good)/2]} {
		require.NoError(t, os.WriteFile(page, b, 0o644))
		got, err := r.ReadCounters(ctx)
		require.NoError(t, err)
		require.False(t, got["nvme0"].OK, "page of %d bytes", len(b))
		require.NoError(t, s.Sample(ctx, t0.Add(time.Duration(i+1)*time.Minute)))
	}
	require.NoError(t, os.WriteFile(page, good, 0o644))
	require.NoError(t, s.Sample(ctx, t0.Add(3*time.Minute)))
	d, _ := windowsOf(t, s, "nvme0")
	require.Zero(t, d.Resets)
	require.Equal(t, before.RunStart, d.RunStart)
	require.Equal(t, 2, d.Samples)
}
