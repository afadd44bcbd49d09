package probe

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/replay"
	"github.com/walab/walab/internal/nvme/replay/fixture"
)

// countingBackend counts commands reaching a replay backend and holds each
// one until released, so concurrent callers really overlap.
type countingBackend struct {
	inner *replay.Backend
	n     atomic.Int64
	gate  chan struct{}
}

func (b *countingBackend) Exec(ctx context.Context, c admin.Command) (admin.Result, error) {
	b.n.Add(1)
	if b.gate != nil {
		<-b.gate
	}
	return b.inner.Exec(ctx, c)
}
func (b *countingBackend) Close() error { return nil }

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestPollerDeduplicatesConcurrentScrapes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nvme0")
	d := fixture.OCPDrive()
	require.NoError(t, d.Write(dir))
	cb := &countingBackend{inner: replay.NewBackend(dir), gate: make(chan struct{})}
	dev := admin.New("nvme0", cb)
	clk := &clock{t: time.Unix(1000, 0)}
	p := NewPoller(dev, []uint32{1}, Config{}, Options{Now: clk.now})

	// Probe once: Identify Controller, Identify Namespace, OCP 0xC0; then
	// each poll is SMART + 0xC0.
	const scrapes = 100
	var wg sync.WaitGroup
	results := make(chan *Sample, scrapes)
	for range scrapes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := p.Sample(context.Background())
			if err == nil {
				results <- s
			}
		}()
	}
	// Let the single read through, one command at a time.
	go func() {
		for range 5 {
			cb.gate <- struct{}{}
		}
	}()
	wg.Wait()
	close(results)
	var first *Sample
	n := 0
	for s := range results {
		if first == nil {
			first = s
		}
		require.Same(t, first, s, "every scrape shares one read")
		n++
	}
	require.Equal(t, scrapes, n)
	require.EqualValues(t, 5, cb.n.Load(), "identify ctrl + identify ns + 0xC0 probe + SMART + 0xC0 poll")
	st := dev.Stats()
	require.EqualValues(t, 1, st.Sent[admin.CommandKey{Opcode: admin.OpGetLogPage, LogID: 0x02}])
	require.EqualValues(t, 2, st.Sent[admin.CommandKey{Opcode: admin.OpGetLogPage, LogID: 0xC0}])
	require.EqualValues(t, 2, st.Sent[admin.CommandKey{Opcode: admin.OpIdentify}])

	// Within max age: served from cache.
	clk.add(4 * time.Second)
	_, err := p.Sample(context.Background())
	require.NoError(t, err)
	require.EqualValues(t, 5, cb.n.Load())

	// After max age: one new poll (SMART + 0xC0), no new probe.
	cb.gate = nil
	clk.add(2 * time.Second)
	d.SMART.DataUnitsWritten++
	require.NoError(t, d.SetSMART(dir))
	s, err := p.Sample(context.Background())
	require.NoError(t, err)
	require.EqualValues(t, 7, cb.n.Load())
	require.Equal(t, first.SMARTHostBytes.Lo+512000, s.SMARTHostBytes.Lo)
}

func TestPollerUnsupportedPagesProbedOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nvme0")
	require.NoError(t, fixture.SMARTOnlyDrive().Write(dir))
	dev := admin.New("nvme0", replay.NewBackend(dir))
	p := NewPoller(dev, []uint32{1}, Config{}, Options{MaxAge: -1})
	for range 3 {
		s, err := p.Sample(context.Background())
		require.NoError(t, err)
		require.Equal(t, SourceNone, s.Source)
	}
	st := dev.Stats()
	// 0xC0 (OCP) and 0xCA (intel_ca matches VID 0x8086) were asked once, at probe time.
	require.EqualValues(t, 1, st.Sent[admin.CommandKey{Opcode: admin.OpGetLogPage, LogID: 0xC0}])
	require.EqualValues(t, 1, st.Sent[admin.CommandKey{Opcode: admin.OpGetLogPage, LogID: 0xCA}])
	require.EqualValues(t, 3, st.Sent[admin.CommandKey{Opcode: admin.OpGetLogPage, LogID: 0x02}])
}

func TestPollerDeviceRemovedMidRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nvme0")
	require.NoError(t, fixture.FDPDrive().Write(dir))
	p := NewPoller(admin.New("nvme0", replay.NewBackend(dir)), nil, Config{}, Options{MaxAge: -1})
	_, err := p.Sample(context.Background())
	require.NoError(t, err)
	require.NoError(t, os.RemoveAll(dir))
	_, err = p.Sample(context.Background())
	require.ErrorContains(t, err, "controller folder is gone")
	require.ErrorContains(t, err, "nvme0: read SMART log")
	require.NotNil(t, p.Plan(), "the probe result survives a failed poll")
}

func TestPollerKeepsItsSourceWhenThePageFails(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nvme0")
	require.NoError(t, fixture.FDPDrive().Write(dir))
	p := NewPoller(admin.New("nvme0", replay.NewBackend(dir)), []uint32{1}, Config{}, Options{MaxAge: -1})
	s, err := p.Sample(context.Background())
	require.NoError(t, err)
	require.Equal(t, SourceFDP, s.Source)
	require.True(t, s.SourceUp())
	want := *s.MediaBytes

	// FDP statistics no longer served (say FDP was disabled, or the drive
	// answers an error): the device is still read (SMART), its source is
	// down, and nothing switches to the Endurance Group log, whose counter
	// would not continue the FDP one.
	page := filepath.Join(dir, "log-22-lsi1.bin")
	saved, err := os.ReadFile(page)
	require.NoError(t, err)
	require.NoError(t, os.Remove(page))
	for range 3 {
		s, err = p.Sample(context.Background())
		require.NoError(t, err, "SMART still reads")
		require.Equal(t, SourceFDP, s.Source)
		require.False(t, s.SourceUp())
		require.True(t, Unsupported(s.SourceErr), "err = %v", s.SourceErr)
		require.Nil(t, s.MediaBytes)
		require.Equal(t, SourceFDP, p.Plan().Source)
	}
	require.Equal(t, map[string]uint64{"0x4002": 3}, p.SourceErrors())

	// A deliberate re-probe (SIGHUP) while the page is gone settles on the
	// Endurance Group log; a second one, with the page back, returns to FDP.
	p.Reprobe()
	s, err = p.Sample(context.Background())
	require.NoError(t, err)
	require.Equal(t, SourceEnduranceGroup, s.Source)
	require.True(t, s.SourceUp())
	p.Reprobe()

	// The page reads again: the same source, the same counter.
	require.NoError(t, os.WriteFile(page, saved, 0o644))
	s, err = p.Sample(context.Background())
	require.NoError(t, err)
	require.True(t, s.SourceUp())
	require.Equal(t, want, *s.MediaBytes)
}

func TestErrorReason(t *testing.T) {
	st := &admin.StatusError{Status: 0x4002}
	require.Equal(t, "0x4002", ErrorReason(&ReadError{Device: "nvme0", What: "x", Err: st}))
	require.Equal(t, "decode", ErrorReason(decodeErr(os.ErrInvalid)))
	require.Equal(t, "timeout", ErrorReason(&ReadError{Err: context.DeadlineExceeded}))
	require.Equal(t, "errno", ErrorReason(os.ErrPermission))
}

func TestPollerCallerTimeoutLeavesTheReadRunning(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nvme0")
	require.NoError(t, fixture.OCPDrive().Write(dir))
	cb := &countingBackend{inner: replay.NewBackend(dir), gate: make(chan struct{})}
	p := NewPoller(admin.New("nvme0", cb), []uint32{1}, Config{}, Options{MaxAge: time.Hour})

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := p.Sample(ctx)
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "read continues")

	close(cb.gate) // the device answers now
	s, err := p.Sample(context.Background())
	require.NoError(t, err)
	require.Equal(t, SourceOCP, s.Source)
	require.EqualValues(t, 5, cb.n.Load(), "the abandoned read was not restarted")
}

// hungBackend blocks every command until released.
type hungBackend struct{ release chan struct{} }

func (h hungBackend) Exec(context.Context, admin.Command) (admin.Result, error) {
	<-h.release
	return admin.Result{}, errors.New("released")
}
func (hungBackend) Close() error { return nil }

// TestHungDeviceIsDownAtOnce (issue 33 item 8): once a caller's deadline
// has passed on a device read, the device is hung: later callers get it as
// down at once, from its last state, instead of waiting out their own
// deadline on the same read; when the read ends, the device reads again.
func TestHungDeviceIsDownAtOnce(t *testing.T) {
	h := hungBackend{release: make(chan struct{})}
	p := NewPoller(admin.New("nvme0", h), []uint32{1}, Config{}, Options{MaxAge: -1})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := p.Sample(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)

	done := make(chan error, 1)
	go func() {
		_, err := p.Sample(context.Background()) // no deadline: waiting would block for ever
		done <- err
	}()
	select {
	case err := <-done:
		require.ErrorIs(t, err, ErrHung)
		require.ErrorContains(t, err, "nvme0")
	case <-time.After(30 * time.Second):
		close(h.release)
		t.Fatal("a caller waited on a hung device")
	}
	require.EqualValues(t, 2, p.Timeouts(), "the caller served at once counts too")
	close(h.release)
}
