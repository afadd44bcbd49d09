package wa

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
)

// newSampler builds a sampler on path and returns New's error; the test
// fails instead of hanging if New blocks (a FIFO at the path).
func newSampler(t *testing.T, path string) (*Sampler, error) {
	t.Helper()
	type res struct {
		s   *Sampler
		err error
	}
	ch := make(chan res, 1)
	go func() {
		s, err := New(Options{Reader: &fakeReader{}, StatePath: path, Now: func() time.Time { return t0 }})
		ch <- res{s, err}
	}()
	select {
	case r := <-ch:
		if r.s != nil {
			t.Cleanup(func() { r.s.Close() })
		}
		return r.s, r.err
	case <-time.After(10 * time.Second):
		t.Fatalf("New(%s) blocked", path)
		return nil, nil
	}
}

// TestStateFileNotOursIsRefused: whatever is at the state path that walab
// did not write makes New fail with the path named, and is left exactly as
// it was (content, type, target).
func TestStateFileNotOursIsRefused(t *testing.T) {
	type setup func(t *testing.T, dir, path string) (check func(t *testing.T))
	unchangedFile := func(t *testing.T, p string) func(t *testing.T) {
		before, err := os.ReadFile(p)
		require.NoError(t, err)
		return func(t *testing.T) {
			after, err := os.ReadFile(p)
			require.NoError(t, err)
			require.Equal(t, before, after, "%s changed", p)
		}
	}
	unchangedNode := func(t *testing.T, p string) func(t *testing.T) {
		var before syscall.Stat_t
		require.NoError(t, syscall.Stat(p, &before))
		return func(t *testing.T) {
			var after syscall.Stat_t
			require.NoError(t, syscall.Stat(p, &after))
			require.Equal(t, before.Mode, after.Mode, "%s changed type", p)
			require.Equal(t, before.Rdev, after.Rdev, "%s changed device", p)
			require.Equal(t, before.Ino, after.Ino, "%s was replaced", p)
		}
	}
	tests := []struct {
		name  string
		setup setup
		err   string
	}{
		{"symlink to a file of ours", func(t *testing.T, dir, path string) func(*testing.T) {
			target := filepath.Join(dir, "precious.txt")
			require.NoError(t, os.WriteFile(target, []byte("not a state file"), 0o644))
			require.NoError(t, os.Symlink(target, path))
			return unchangedFile(t, target)
		}, "is a symlink"},
		{"symlink to a valid state file", func(t *testing.T, dir, path string) func(*testing.T) {
			target := filepath.Join(dir, "other.state")
			require.NoError(t, os.WriteFile(target, encodeState(nil, state{SavedAt: 1}), 0o644))
			require.NoError(t, os.Symlink(target, path))
			return unchangedFile(t, target)
		}, "is a symlink"},
		{"symlink to /dev/null", func(t *testing.T, dir, path string) func(*testing.T) {
			require.NoError(t, os.Symlink("/dev/null", path))
			return unchangedNode(t, "/dev/null")
		}, "is a symlink"},
		{"foreign file", func(t *testing.T, dir, path string) func(*testing.T) {
			require.NoError(t, os.WriteFile(path, []byte("[client]\npassword=secret\n"), 0o600))
			return unchangedFile(t, path)
		}, `no walab header (starts "[client]")`},
		{"FIFO", func(t *testing.T, dir, path string) func(*testing.T) {
			require.NoError(t, syscall.Mkfifo(path, 0o644))
			return unchangedNode(t, path)
		}, "is a FIFO"},
		{"directory", func(t *testing.T, dir, path string) func(*testing.T) {
			require.NoError(t, os.Mkdir(path, 0o755))
			return unchangedNode(t, path)
		}, "is a directory"},
		{"oversized file with walab's magic", func(t *testing.T, dir, path string) func(*testing.T) {
			f, err := os.Create(path)
			require.NoError(t, err)
			_, err = f.Write(encodeState(nil, state{})[:headerSize])
			require.NoError(t, err)
			require.NoError(t, f.Truncate(3<<30)) // sparse: 3 GB claimed, nothing allocated
			require.NoError(t, f.Close())
			return unchangedNode(t, path)
		}, "larger than"},
	}
	if os.Geteuid() == 0 {
		tests = append(tests, struct {
			name  string
			setup setup
			err   string
		}{"character device node", func(t *testing.T, dir, path string) func(*testing.T) {
			// A private /dev/null (1:3) in the temp dir: the real one is not at risk.
			require.NoError(t, syscall.Mknod(path, syscall.S_IFCHR|0o666, 1<<8|3))
			return unchangedNode(t, path)
		}, "is a character device"})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "wa.state")
			check := tc.setup(t, dir, path)
			start := time.Now()
			s, err := newSampler(t, path)
			require.Nil(t, s)
			require.ErrorContains(t, err, "state file "+path+" is not walab's")
			require.ErrorContains(t, err, tc.err)
			require.Less(t, time.Since(start), 5*time.Second)
			check(t)
			ents, err := os.ReadDir(dir)
			require.NoError(t, err)
			for _, e := range ents {
				require.False(t, strings.Contains(e.Name(), ".tmp-"), "temp file %s left behind", e.Name())
			}
		})
	}
}

// TestStateFileDevNull: state_file: /dev/null (as root the old code
// replaced the host's /dev/null with a regular file) is refused, and
// nothing is created in /dev.
func TestStateFileDevNull(t *testing.T) {
	var before syscall.Stat_t
	require.NoError(t, syscall.Stat("/dev/null", &before))
	_, err := newSampler(t, "/dev/null")
	require.ErrorContains(t, err, "/dev/null is a character device")
	var after syscall.Stat_t
	require.NoError(t, syscall.Stat("/dev/null", &after))
	require.Equal(t, before, after)
	_, err = os.Lstat("/dev/null.lock")
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestTwoSamplersOnOneStateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wa.state")
	s1, err := newSampler(t, path)
	require.NoError(t, err)
	r := s1.opts.Reader.(*fakeReader)
	r.set("nvme0", 1, 2)
	_, err = s1.MarkRunStart(context.Background(), "")
	require.NoError(t, err)

	s2, err := newSampler(t, path)
	require.Nil(t, s2)
	require.ErrorContains(t, err, "state file "+path+" is in use by another exporter")

	require.NoError(t, s1.Close())
	s3, err := newSampler(t, path)
	require.NoError(t, err, "the lock goes with the first sampler")
	require.Equal(t, s1.Marks(), s3.Marks(), "the first sampler's mark was not overwritten")
}

// TestFutureSamplesInStateAreDropped: a state file written while the clock
// was a day ahead used to freeze every window for that day (every new
// sample was "older" than the last one). The future samples are dropped
// and sampling goes on.
func TestFutureSamplesInStateAreDropped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wa.state")
	ahead := t0.Add(24 * time.Hour)
	st := state{SavedAt: ahead.UnixMilli(), Devices: []deviceState{{
		Name: "nvme0", Source: "test", Mark: runMark{T: t0.Add(-time.Hour).UnixMilli(), Host: 0, Media: 0},
		Samples: []sample{
			{T: t0.Add(-time.Hour).UnixMilli(), Host: 0, Media: 0},
			{T: t0.Add(-time.Minute).UnixMilli(), Host: 100 * mib, Media: 200 * mib},
			{T: ahead.UnixMilli(), Host: 200 * mib, Media: 400 * mib},
		},
	}}}
	require.NoError(t, os.WriteFile(path, encodeState(nil, st), 0o644))
	r := &fakeReader{}
	s, logs := newTestSampler(t, r, Options{StatePath: path, PersistEvery: 1000})
	require.Contains(t, logs.String(), "held samples dated after now; dropped them")
	d, _ := windowsOf(t, s, "nvme0")
	require.Equal(t, 2, d.Samples)

	r.set("nvme0", 300*mib, 900*mib) // WA 3 since t0-1m
	require.NoError(t, s.Sample(context.Background(), t0))
	d, w := windowsOf(t, s, "nvme0")
	require.Equal(t, t0, d.LastSample.UTC(), "the new sample was taken, not dropped as older")
	require.Equal(t, want{3.0, true, 3600}, want{w["1h"].WA, w["1h"].HasWA, w["1h"].Seconds})
}

// TestClockStepBackDropsFutureSamples: the clock steps back at run time.
func TestClockStepBackDropsFutureSamples(t *testing.T) {
	r := &fakeReader{}
	s, logs := newTestSampler(t, r, Options{})
	feed(t, s, r, "nvme0", []rate{{10, 10 * mib, 10 * mib}}) // t0 .. t0+10m, WA 2
	r.set("nvme0", 2000*mib, 2400*mib)
	back := t0.Add(5*time.Minute + 30*time.Second)
	require.NoError(t, s.Sample(context.Background(), back))
	require.Contains(t, logs.String(), "samples dated after now dropped")
	d, w := windowsOf(t, s, "nvme0")
	require.Equal(t, back, d.LastSample.UTC())
	require.Equal(t, 7, d.Samples, "t0..t0+5m kept, then the new one")
	require.True(t, w["1h"].HasWA)
	require.Zero(t, d.Resets)
}

func TestStateFileSizeCap(t *testing.T) {
	require.Equal(t, int64(minStateCap), maxStateBytes(capacityFor(24*time.Hour, time.Minute)))
	big := maxStateBytes(MaxSamplesPerDevice)
	require.Greater(t, big, int64(maxStateDevices*MaxSamplesPerDevice*sampleSize), "full rings of maxStateDevices fit")
	// The file of a full default fleet (24 devices, 24h at 60 s) fits easily.
	st := state{}
	for i := range 24 {
		d := deviceState{Name: strings.Repeat("n", 200) + string(rune('a'+i)), Source: strings.Repeat("s", 255)}
		for j := range capacityFor(24*time.Hour, time.Minute) {
			d.Samples = append(d.Samples, sample{T: int64(j)})
		}
		st.Devices = append(st.Devices, d)
	}
	require.Less(t, int64(len(encodeState(nil, st))), maxStateBytes(capacityFor(24*time.Hour, time.Minute)))
}

// TestSaveFailuresAreCountedAndLoggedOnce: a state file that cannot be
// written is a metric and one log line per change, not a "sample failed"
// line at every sample while the samples themselves are fine.
func TestSaveFailuresAreCountedAndLoggedOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wa.state")
	r := &fakeReader{}
	clock := t0
	s, logs := newTestSampler(t, r, Options{StatePath: path, Interval: time.Second, Windows: []time.Duration{time.Minute},
		Now: func() time.Time { clock = clock.Add(time.Second); return clock }})
	r.set("nvme0", 1, 1)
	require.NoError(t, s.Sample(context.Background(), s.opts.Now()))
	saved, ok := metricValue(t, s, "walab_nvme_wa_state_last_save_timestamp_seconds")
	require.True(t, ok)
	errs, ok := metricValue(t, s, "walab_nvme_wa_state_save_errors_total")
	require.True(t, ok)
	require.Zero(t, errs)

	s.writer.failAfterWrite = func(string) error { return syscall.EROFS }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx) }()
	require.Eventually(t, func() bool {
		v, _ := metricValue(t, s, "walab_nvme_wa_state_save_errors_total")
		return v >= 3
	}, 10*time.Second, 10*time.Millisecond)
	cancel()
	<-done
	last, _ := metricValue(t, s, "walab_nvme_wa_state_last_save_timestamp_seconds")
	require.Equal(t, saved, last, "no success since")
	out := logs.String()
	require.Equal(t, 1, strings.Count(out, "cannot save write-amplification state"), out)
	require.NotContains(t, out, "sample failed")
	d, _ := windowsOf(t, s, "nvme0")
	require.GreaterOrEqual(t, d.Samples, 3, "sampling went on")

	s.writer.failAfterWrite = nil
	require.NoError(t, s.Flush())
	require.Contains(t, logs.String(), "write-amplification state saved again")
	last, _ = metricValue(t, s, "walab_nvme_wa_state_last_save_timestamp_seconds")
	require.Greater(t, last, saved)
}

func TestSaveMetricsAbsentWithoutStateFile(t *testing.T) {
	s, _ := newTestSampler(t, &fakeReader{}, Options{})
	for _, name := range []string{"walab_nvme_wa_state_save_errors_total", "walab_nvme_wa_state_last_save_timestamp_seconds"} {
		_, ok := metricValue(t, s, name)
		require.False(t, ok, name)
	}
}

// metricValue gathers s and returns the value of the unlabelled metric name.
func metricValue(t *testing.T, s *Sampler, name string) (float64, bool) {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(s))
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		m := mf.GetMetric()[0]
		if m.GetCounter() != nil {
			return m.GetCounter().GetValue(), true
		}
		return m.GetGauge().GetValue(), true
	}
	return 0, false
}
