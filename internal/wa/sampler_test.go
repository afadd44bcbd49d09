package wa

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
)

// want is an expected window: ok false means the WA series must be absent.
type want struct {
	wa      float64
	ok      bool
	seconds float64
}

func TestWindows(t *testing.T) {
	// Three hours at 100 MiB/min of host writes with WA 1.5, then 2.0, then
	// 3.0 (GC 50, 100, 200 MiB/min). By hand:
	//   last 1h:  media 60*300 / host 60*100                 = 3.0
	//   last 2h:  60*(200+300) / 60*(100+100)                = 2.5
	//   last 30m: 3.0; all 3h: 60*(150+200+300)/(60*300)     = 39000/18000
	threeHours := []rate{{60, 100 * mib, 50 * mib}, {60, 100 * mib, 100 * mib}, {60, 100 * mib, 200 * mib}}
	tests := []struct {
		name    string
		windows []time.Duration
		rates   []rate
		want    map[string]want
	}{
		{
			name:    "default windows, exporter younger than 24h",
			windows: nil,
			rates:   threeHours,
			want: map[string]want{
				"1h":  {3.0, true, 3600},
				"24h": {39000.0 / 18000.0, true, 3 * 3600},
				"run": {39000.0 / 18000.0, true, 3 * 3600},
			},
		},
		{
			name:    "windows shorter than the history",
			windows: []time.Duration{30 * time.Minute, 2 * time.Hour},
			rates:   threeHours,
			want: map[string]want{
				"30m": {3.0, true, 1800},
				"2h":  {2.5, true, 7200},
				"run": {39000.0 / 18000.0, true, 3 * 3600},
			},
		},
		{
			name:    "window exactly as long as the history",
			windows: []time.Duration{3 * time.Hour},
			rates:   threeHours,
			want: map[string]want{
				"3h":  {39000.0 / 18000.0, true, 3 * 3600},
				"run": {39000.0 / 18000.0, true, 3 * 3600},
			},
		},
		{
			name:    "no host writes at all: every WA absent, spans still published",
			windows: nil,
			rates:   []rate{{120, 0, 10 * mib}},
			want: map[string]want{
				"1h":  {0, false, 3600},
				"24h": {0, false, 2 * 3600},
				"run": {0, false, 2 * 3600},
			},
		},
		{
			name:    "host idle only in the last hour",
			windows: nil,
			rates:   []rate{{60, 100 * mib, 100 * mib}, {60, 0, 30 * mib}},
			want: map[string]want{
				"1h":  {0, false, 3600},
				"24h": {(6000.0*2 + 60*30) / 6000.0, true, 2 * 3600},
				"run": {(6000.0*2 + 60*30) / 6000.0, true, 2 * 3600},
			},
		},
		{
			name:    "a single sample has no span and no WA",
			windows: nil,
			rates:   nil,
			want: map[string]want{
				"1h":  {0, false, 0},
				"24h": {0, false, 0},
				"run": {0, false, 0},
			},
		},
		{
			name:    "26h of history: 24h window slides, run keeps everything",
			windows: nil,
			rates:   []rate{{120, 100 * mib, 900 * mib}, {24 * 60, 100 * mib, 100 * mib}},
			want: map[string]want{
				"1h":  {2.0, true, 3600},
				"24h": {2.0, true, 24 * 3600},
				// the run mark stays at the first sample even after the ring drops it
				"run": {(120.0*1000 + 1440*200) / (1560.0 * 100), true, 26 * 3600},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &fakeReader{}
			s, _ := newTestSampler(t, r, Options{Windows: tc.windows})
			feed(t, s, r, "nvme0", tc.rates)
			_, got := windowsOf(t, s, "nvme0")
			require.Len(t, got, len(tc.want))
			for name, w := range tc.want {
				g, ok := got[name]
				require.True(t, ok, "window %s missing", name)
				require.Equal(t, w.ok, g.HasWA, "window %s: WA presence", name)
				require.Equal(t, w.seconds, g.Seconds, "window %s: span", name)
				if w.ok {
					require.InDelta(t, w.wa, g.WA, 1e-12, "window %s", name)
				}
			}
		})
	}
}

func TestWindowEdgeTolerance(t *testing.T) {
	// A ticker drifts: the sample an hour back may be a few ms older than
	// exactly 1h. It must still be the window's start (tolerance interval/2),
	// and the published span says what was really covered.
	r := &fakeReader{}
	s, _ := newTestSampler(t, r, Options{})
	ctx := context.Background()
	r.set("nvme0", 0, 0)
	require.NoError(t, s.Sample(ctx, t0))
	r.set("nvme0", 100, 150)
	require.NoError(t, s.Sample(ctx, t0.Add(30*time.Minute)))
	r.set("nvme0", 200, 500)
	require.NoError(t, s.Sample(ctx, t0.Add(time.Hour+250*time.Millisecond)))
	_, got := windowsOf(t, s, "nvme0")
	require.Equal(t, want{2.5, true, 3600.25}, want{got["1h"].WA, got["1h"].HasWA, got["1h"].Seconds})

	// Beyond the tolerance the older samples are out of the window: at
	// 1h40m the window reaches back to 40m (less 30s), so it starts at the
	// 1h+250ms sample.
	r.set("nvme0", 300, 700)
	require.NoError(t, s.Sample(ctx, t0.Add(time.Hour+40*time.Minute)))
	_, got = windowsOf(t, s, "nvme0")
	require.Equal(t, want{2.0, true, 2399.75}, want{got["1h"].WA, got["1h"].HasWA, got["1h"].Seconds})
}

// A counter that drops for a round or two and comes back (an emptied or
// half-written page, a firmware hiccup) is a glitch: the reading is not
// recorded, the device's WA is absent for those rounds, and nothing else
// changes. Issue 33 item 5: one zero reading used to reset the windows and
// move the run mark, and the lifetime ratio was then exported as every
// window's WA.
func TestCounterGlitchIsNotANewBaseline(t *testing.T) {
	tests := []struct {
		name        string
		host, media uint64
	}{
		{"both read zero", 0, 0},
		{"host counter backwards", 10 * mib, 999999 * mib},
		{"media counter backwards", 999999 * mib, 10 * mib},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &fakeReader{}
			s, logs := newTestSampler(t, r, Options{})
			last := feed(t, s, r, "nvme0", []rate{{90, 10 * mib, 10 * mib}})
			ctx := context.Background()
			before, wBefore := windowsOf(t, s, "nvme0")

			for i := range glitchRounds - 1 {
				r.set("nvme0", tc.host, tc.media)
				require.NoError(t, s.Sample(ctx, last.Add(time.Duration(i+1)*time.Minute)))
				d, got := windowsOf(t, s, "nvme0")
				require.True(t, d.Down, "a glitching device is down")
				require.Equal(t, before.Samples, d.Samples, "the glitch is not recorded")
				require.Equal(t, before.RunStart, d.RunStart, "the run mark never moves")
				require.Zero(t, d.Resets)
				for _, w := range got {
					require.False(t, w.HasWA, "window %s during a glitch", w.Window)
				}
			}
			require.Contains(t, logs.String(), "counters went backwards")

			// The counters come back where they were, plus 1h of writes at WA 2.
			back := last.Add(glitchRounds * time.Minute)
			r.set("nvme0", 1000*mib+900*mib+10*mib, 1200*mib+1800*mib+20*mib)
			require.NoError(t, s.Sample(ctx, back))
			d, got := windowsOf(t, s, "nvme0")
			require.False(t, d.Down)
			require.Zero(t, d.Resets)
			require.Equal(t, before.RunStart, d.RunStart, "the run mark never moves")
			require.True(t, got["run"].HasWA)
			require.InDelta(t, 1820.0/910, got["run"].WA, 1e-9, "the run spans the glitch")
			require.InDelta(t, wBefore["run"].Seconds+float64(glitchRounds*60), got["run"].Seconds, 1e-9)
			require.InDelta(t, 2.0, got["1h"].WA, 0.02, "1h window, not the lifetime ratio")
		})
	}
}

// A drop that persists for glitchRounds consistent readings is a new drive
// (or a counter reset): the rolling windows restart from it. The run mark
// stays where it was, and the run's WA is absent until the next run-start,
// since the mark's counters belong to the old drive. A changed counter
// source is a reset at once.
func TestCounterReset(t *testing.T) {
	tests := []struct {
		name        string
		host, media uint64
		source      string
		rounds      int
	}{
		{"host counter backwards", 10 * mib, 999999 * mib, "test", glitchRounds},
		{"media counter backwards", 999999 * mib, 10 * mib, "test", glitchRounds},
		{"both backwards (new drive)", 1 * mib, 1 * mib, "test", glitchRounds},
		{"counter source changed", 999999 * mib, 999999 * mib, "ocp_c0", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &fakeReader{}
			s, logs := newTestSampler(t, r, Options{})
			last := feed(t, s, r, "nvme0", []rate{{90, 10 * mib, 10 * mib}})
			ctx := context.Background()
			before, _ := windowsOf(t, s, "nvme0")

			var swap time.Time
			for i := range tc.rounds {
				swap = last.Add(time.Duration(i+1) * time.Minute)
				r.setSource("nvme0", tc.host+uint64(i), tc.media+uint64(i), tc.source)
				require.NoError(t, s.Sample(ctx, swap))
			}
			d, got := windowsOf(t, s, "nvme0")
			require.Equal(t, uint64(1), d.Resets)
			require.False(t, d.Down)
			require.Equal(t, tc.rounds, d.Samples, "history restarts at the first reading of the new counters")
			require.Equal(t, before.RunStart, d.RunStart, "the run mark never moves")
			require.True(t, d.RunLost)
			_, hasRun := got["run"]
			require.False(t, hasRun, "no run WA across a reset")
			require.Contains(t, logs.String(), "windows reset")

			// The windows continue from the new drive's counters only.
			r.setSource("nvme0", tc.host+4*mib, tc.media+6*mib, tc.source)
			next := swap.Add(time.Minute)
			require.NoError(t, s.Sample(ctx, next))
			_, got = windowsOf(t, s, "nvme0")
			for _, name := range []string{"1h", "24h"} {
				require.True(t, got[name].HasWA)
				require.InDelta(t, 1.5, got[name].WA, 1e-5, name)
				require.Equal(t, float64(tc.rounds*60), got[name].Seconds, name)
			}
			_, hasRun = got["run"]
			require.False(t, hasRun, "the run stays lost until a run-start")

			// A run-start gives the run back.
			marks, err := s.MarkRunStart(ctx, "nvme0")
			require.NoError(t, err)
			require.False(t, marks[0].Lost)
			r.setSource("nvme0", tc.host+6*mib, tc.media+9*mib, tc.source)
			require.NoError(t, s.Sample(ctx, next.Add(time.Minute)))
			_, got = windowsOf(t, s, "nvme0")
			require.True(t, got["run"].HasWA)
		})
	}
}

// Readings that drop but disagree with each other (a page that is
// half-written in different ways) never confirm a reset.
func TestInconsistentDropsStayGlitches(t *testing.T) {
	r := &fakeReader{}
	s, _ := newTestSampler(t, r, Options{})
	last := feed(t, s, r, "nvme0", []rate{{10, 10 * mib, 10 * mib}})
	ctx := context.Background()
	for i := range 3 * glitchRounds {
		if i%2 == 0 {
			r.set("nvme0", 5*mib, 5*mib)
		} else {
			r.set("nvme0", 0, 0)
		}
		require.NoError(t, s.Sample(ctx, last.Add(time.Duration(i+1)*time.Minute)))
	}
	d, _ := windowsOf(t, s, "nvme0")
	require.Zero(t, d.Resets)
	require.True(t, d.Down)
}

// A run-start taken while the counters glitch does not take the glitched
// reading as the run's baseline: the mark waits for the next good sample.
func TestRunStartDuringGlitchIsPending(t *testing.T) {
	r := &fakeReader{}
	s, _ := newTestSampler(t, r, Options{})
	last := feed(t, s, r, "nvme0", []rate{{10, 10 * mib, 10 * mib}})
	ctx := context.Background()
	r.set("nvme0", 0, 0)
	marks, err := s.MarkRunStart(ctx, "nvme0")
	require.NoError(t, err)
	require.True(t, marks[0].Pending)
	r.set("nvme0", 1100*mib, 1400*mib)
	require.NoError(t, s.Sample(ctx, last.Add(time.Minute)))
	r.set("nvme0", 1110*mib, 1430*mib)
	require.NoError(t, s.Sample(ctx, last.Add(2*time.Minute)))
	_, got := windowsOf(t, s, "nvme0")
	require.InDelta(t, 3.0, got["run"].WA, 1e-9)
}

func TestUnreadableDevicesAreSkipped(t *testing.T) {
	r := &fakeReader{}
	s, _ := newTestSampler(t, r, Options{})
	ctx := context.Background()
	r.set("nvme0", 0, 0)
	r.set("nvme1", 0, 0)
	require.NoError(t, s.Sample(ctx, t0))
	r.set("nvme0", 100, 200)
	r.fail("nvme1")
	require.NoError(t, s.Sample(ctx, t0.Add(time.Minute)))
	d1, _ := windowsOf(t, s, "nvme1")
	require.Equal(t, 1, d1.Samples)
	require.Equal(t, t0, d1.LastSample.UTC())

	r.err = errReader
	require.ErrorIs(t, s.Sample(ctx, t0.Add(2*time.Minute)), errReader)
	d0, _ := windowsOf(t, s, "nvme0")
	require.Equal(t, 2, d0.Samples, "a failed read adds nothing")
}

func TestClockSteppedBackDropsSample(t *testing.T) {
	r := &fakeReader{}
	s, _ := newTestSampler(t, r, Options{})
	ctx := context.Background()
	r.set("nvme0", 100, 100)
	require.NoError(t, s.Sample(ctx, t0.Add(time.Hour)))
	r.set("nvme0", 200, 300)
	require.NoError(t, s.Sample(ctx, t0))
	d, _ := windowsOf(t, s, "nvme0")
	require.Equal(t, 1, d.Samples)
	require.Equal(t, uint64(0), d.Resets)
}

func TestMemoryIsBounded(t *testing.T) {
	tests := []struct {
		name     string
		interval time.Duration
		windows  []time.Duration
		capacity int
	}{
		{"defaults: 24h at 60s", 0, nil, 1441},
		{"1h at 60s", time.Minute, []time.Duration{time.Hour}, 61},
		{"uneven: 1h at 7m", 7 * time.Minute, []time.Duration{time.Hour}, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &fakeReader{}
			s, _ := newTestSampler(t, r, Options{Interval: tc.interval, Windows: tc.windows})
			require.Equal(t, tc.capacity, s.Capacity())
			iv := s.Interval()
			ctx := context.Background()
			for i := range 3 * tc.capacity {
				r.set("nvme0", uint64(i)*10, uint64(i)*20)
				require.NoError(t, s.Sample(ctx, t0.Add(time.Duration(i)*iv)))
				d, _ := windowsOf(t, s, "nvme0")
				require.LessOrEqual(t, d.Samples, tc.capacity)
			}
			d, _ := windowsOf(t, s, "nvme0")
			require.Equal(t, tc.capacity, d.Samples)
			require.Len(t, s.devs["nvme0"].hist.buf, tc.capacity, "ring never reallocated")
		})
	}
}

func TestVanishedDeviceIsForgottenAfterLongestWindow(t *testing.T) {
	r := &fakeReader{}
	s, _ := newTestSampler(t, r, Options{Windows: []time.Duration{time.Hour}})
	ctx := context.Background()
	r.set("nvme0", 1, 1)
	r.set("nvme1", 1, 1)
	require.NoError(t, s.Sample(ctx, t0))
	delete(r.cur, "nvme1")
	for i := 1; i <= 61; i++ {
		r.set("nvme0", uint64(1+i), uint64(1+i))
		require.NoError(t, s.Sample(ctx, t0.Add(time.Duration(i)*time.Minute)))
	}
	names := []string{}
	for _, d := range s.Snapshot() {
		names = append(names, d.Device)
	}
	require.Equal(t, []string{"nvme0"}, names)
}

func TestOptionsValidation(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		err  string
	}{
		{"no reader", Options{}, "no counter reader"},
		{"interval too short", Options{Reader: &fakeReader{}, Interval: time.Millisecond}, "shorter than 1s"},
		{"window shorter than interval", Options{Reader: &fakeReader{}, Windows: []time.Duration{30 * time.Second}}, "shorter than the sampling interval"},
		{"duplicate window", Options{Reader: &fakeReader{}, Windows: []time.Duration{time.Hour, 60 * time.Minute}}, "configured twice"},
		// Used to be accepted, then run the process out of memory.
		{"window that sizes memory past the bound", Options{Reader: &fakeReader{}, Windows: []time.Duration{100000 * time.Hour}},
			"window 100000h at interval 1m0s needs 6000001 samples per device, more than the limit 100000 (2.4 MB of memory per device)"},
		{"bound reached by a short interval", Options{Reader: &fakeReader{}, Interval: time.Second, Windows: []time.Duration{48 * time.Hour}},
			"needs 172801 samples per device"},
		{"interval over a day", Options{Reader: &fakeReader{}, Interval: 25 * time.Hour, Windows: []time.Duration{100 * time.Hour}}, "longer than 24h"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.opts)
			require.ErrorContains(t, err, tc.err)
		})
	}
}

func TestWindowName(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Hour: "1h", 24 * time.Hour: "24h", 30 * time.Minute: "30m", 90 * time.Second: "90s", 1500 * time.Millisecond: "1.5s",
	} {
		require.Equal(t, want, WindowName(d))
	}
}

func TestRunSamplesOnceAndSavesOnShutdown(t *testing.T) {
	r := &fakeReader{}
	path := t.TempDir() + "/wa.state"
	s, _ := newTestSampler(t, r, Options{StatePath: path, PersistEvery: 100})
	r.set("nvme0", 5, 7)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Run samples at once, sees the cancel, saves and returns
	require.NoError(t, s.Run(ctx))
	st, err := loadState(path, minStateCap)
	require.NoError(t, err)
	require.Len(t, st.Devices, 1)
	require.Equal(t, []sample{{T: t0.UnixMilli(), Host: 5, Media: 7}}, st.Devices[0].Samples)
}

// Run, scrapes and run marks overlap in the exporter; under -race this
// shows the locking holds.
func TestConcurrentUse(t *testing.T) {
	r := &fakeReader{}
	path := t.TempDir() + "/wa.state"
	s, _ := newTestSampler(t, r, Options{StatePath: path, PersistEvery: 5})
	r.set("nvme0", 0, 0)
	ctx := context.Background()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; i <= 50; i++ {
			r.set("nvme0", uint64(i)*10, uint64(i)*25)
			_ = s.Sample(ctx, t0.Add(time.Duration(i)*time.Minute))
		}
	}()
	for i := 0; i < 50; i++ {
		_ = s.Snapshot()
		_, _ = s.MarkRunStart(ctx, "")
		_ = s.Marks()
	}
	<-done
	d, _ := windowsOf(t, s, "nvme0")
	require.Equal(t, 50, d.Samples, "every sample after the first was kept")
	_, err := loadState(path, minStateCap)
	require.NoError(t, err, "concurrent saves leave a valid state file")
}

// TestFailingDeviceHasNoWA: a device whose counters cannot be read (its NAND
// source failing, or left out of a round altogether) publishes no WA while
// it fails — the last value frozen would be a number that is not true — and
// publishes again, from the kept history, once it reads.
func TestFailingDeviceHasNoWA(t *testing.T) {
	r := &fakeReader{}
	s, _ := newTestSampler(t, r, Options{})
	ctx := context.Background()
	r.set("nvme0", 0, 0)
	require.NoError(t, s.Sample(ctx, t0))
	r.set("nvme0", 100, 250)
	require.NoError(t, s.Sample(ctx, t0.Add(time.Minute)))
	_, w := windowsOf(t, s, "nvme0")
	require.True(t, w["1h"].HasWA)
	require.InDelta(t, 2.5, w["1h"].WA, 1e-12)

	r.fail("nvme0")
	require.NoError(t, s.Sample(ctx, t0.Add(2*time.Minute)))
	d, w := windowsOf(t, s, "nvme0")
	require.True(t, d.Down)
	for name, win := range w {
		require.False(t, win.HasWA, "window %s while the device fails", name)
	}
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(s))
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		require.NotEqual(t, "walab_nvme_write_amplification", mf.GetName(), "no WA series while the device fails")
	}

	// Left out of the round entirely (the adapter dropped it): the same.
	r.mu.Lock()
	delete(r.cur, "nvme0")
	r.mu.Unlock()
	require.NoError(t, s.Sample(ctx, t0.Add(3*time.Minute)))
	d, _ = windowsOf(t, s, "nvme0")
	require.True(t, d.Down)

	// It reads again: WA over the kept history, outage included (the
	// counters are cumulative, so the deltas across the gap are real).
	r.set("nvme0", 300, 650)
	require.NoError(t, s.Sample(ctx, t0.Add(4*time.Minute)))
	d, w = windowsOf(t, s, "nvme0")
	require.False(t, d.Down)
	require.True(t, w["1h"].HasWA)
	require.InDelta(t, 650.0/300, w["1h"].WA, 1e-12)
	require.EqualValues(t, 0, d.Resets)
}
