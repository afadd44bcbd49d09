package hostfacts

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// hungProber's stat of hung and every statfs block until release closes,
// as on a hard NFS mount whose server is gone; calls counts the calls made.
func hungProber(hung string) (p *Prober, calls *atomic.Int64, release func()) {
	calls = &atomic.Int64{}
	ch := make(chan struct{})
	var once sync.Once
	p = NewProber(func(path string, st *unix.Stat_t) error {
		if path == hung {
			calls.Add(1)
			<-ch
		}
		return unix.Stat(path, st)
	}, func(path string, st *unix.Statfs_t) error {
		calls.Add(1)
		<-ch
		return unix.Statfs(path, st)
	})
	return p, calls, func() { once.Do(func() { close(ch) }) }
}

// mountinfoFor writes a proc tree whose mountinfo holds dirs' filesystems.
func mountinfoFor(t *testing.T, dirs ...string) string {
	proc := t.TempDir()
	var b strings.Builder
	for i, d := range dirs {
		var st unix.Stat_t
		require.NoError(t, unix.Stat(d, &st))
		fmt.Fprintf(&b, "%d 1 %d:%d / %s rw - tmpfs none rw\n", i+2, unix.Major(st.Dev), unix.Minor(st.Dev), d)
	}
	require.NoError(t, os.MkdirAll(filepath.Join(proc, "self"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(proc, "self/mountinfo"), []byte(b.String()), 0o644))
	return proc
}

// TestHungStatBounded: issue 42 item 1 at the package seam. However many
// reads meet a hung stat and a hung statfs, one call of each is out (and
// so one blocked thread), each read returns by its context's deadline even
// with an hour's per-call timeout, and the hung directory's facts are
// absent — no mount, no df numbers — and named in Errors.
func TestHungStatBounded(t *testing.T) {
	hung, healthy := t.TempDir(), t.TempDir()
	p, calls, release := hungProber(hung)
	t.Cleanup(release)
	o := Options{ProcFS: mountinfoFor(t, hung, healthy), SysFS: t.TempDir(), DataDirs: []string{hung, healthy},
		StatfsTimeout: time.Hour, Prober: p, SkipIRQs: true}
	goroutines := runtime.NumGoroutine()
	// A first read gives up on each call at its short per-call timeout,
	// so both hung calls are out; the 500 after it have an hour's
	// per-call timeout and only their deadlines.
	first := o
	first.StatfsTimeout = 10 * time.Millisecond
	f := Read(context.Background(), first)
	require.Len(t, f.Mounts, 1)
	require.Equal(t, healthy, f.Mounts[0].DataDir)
	require.Nil(t, f.Mounts[0].Fill)
	const reads = 500
	var wg sync.WaitGroup
	for i := range reads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(1+i%5)*time.Millisecond)
			defer cancel()
			f := Read(ctx, o)
			for _, m := range f.Mounts {
				if m.DataDir == hung || m.Fill != nil || m.SizeBytes != nil {
					t.Errorf("a hung path's facts are present: %+v", m)
				}
			}
			if !strings.Contains(strings.Join(f.Errors, "\n"), hung) {
				t.Errorf("the hung directory is not named: %q", f.Errors)
			}
		}()
	}
	wg.Wait()
	require.Equal(t, int64(2), calls.Load(), "one stat of the hung directory and one statfs of the healthy one's mount, however many reads")
	require.Equal(t, 2, p.Out())
	// The readers' goroutines end after wg.Done: wait for them, then only
	// the two calls out are left.
	for i := 0; i < 10000 && runtime.NumGoroutine() > goroutines+2; i++ {
		time.Sleep(time.Millisecond)
	}
	require.LessOrEqual(t, runtime.NumGoroutine(), goroutines+2)

	// Once the mount answers, the paths are probed again and have facts.
	release()
	require.Eventually(t, func() bool { return p.Out() == 0 }, 10*time.Second, time.Millisecond)
	f = Read(context.Background(), o)
	require.Len(t, f.Mounts, 2, "%q", f.Errors)
	require.NotNil(t, f.Mounts[0].Fill)
}

// TestProberSharesACallOut: two callers of one path while its call is out
// and not yet given up on share it (a healthy but slow mount is not called
// stuck for a concurrent scrape), and the outcome reaches both.
func TestProberSharesACallOut(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int64
	p := NewProber(nil, func(string, *unix.Statfs_t) error {
		if calls.Add(1) == 1 {
			close(started)
		}
		<-release
		return errors.New("EIO")
	})
	errs := make(chan error, 2)
	go func() { _, err := p.Statfs(context.Background(), time.Hour, "/x"); errs <- err }()
	<-started
	go func() { _, err := p.Statfs(context.Background(), time.Hour, "/x"); errs <- err }()
	require.Eventually(t, func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		c := p.out["statfs\x00/x"]
		return c != nil && c.waits == 2
	}, 10*time.Second, time.Millisecond)
	close(release)
	require.EqualError(t, <-errs, "EIO")
	require.EqualError(t, <-errs, "EIO")
	require.Equal(t, int64(1), calls.Load())
}

// TestProberBoundsAllCalls: with maxStuck calls out on distinct paths, a
// new path gets no call (the total of blocked threads is bounded too).
func TestProberBoundsAllCalls(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	var calls atomic.Int64
	p := NewProber(nil, func(string, *unix.Statfs_t) error { calls.Add(1); <-release; return nil })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for i := range maxStuck + 10 {
		dctx, dcancel := context.WithTimeout(context.Background(), time.Millisecond)
		_, err := p.Statfs(dctx, time.Hour, fmt.Sprintf("/p%d", i))
		dcancel()
		require.Error(t, err)
	}
	require.Equal(t, int64(maxStuck), calls.Load())
	_, err := p.Statfs(ctx, time.Hour, "/another")
	require.ErrorIs(t, err, context.Canceled, "an ended context sends no call")
	_, err = p.Statfs(context.Background(), time.Hour, "/another")
	require.ErrorIs(t, err, errTooManyStuck)
}
