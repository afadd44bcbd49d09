package wa

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// t0 is an arbitrary, fixed start for synthetic histories.
var t0 = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

const mib = 1 << 20

// fakeReader returns whatever the test last set: the sampler's real input
// is a map, so a map is the honest stand-in.
type fakeReader struct {
	mu  sync.Mutex
	cur map[string]Counters
	err error
}

func (f *fakeReader) set(dev string, host, media uint64) {
	f.setSource(dev, host, media, "test")
}

func (f *fakeReader) setSource(dev string, host, media uint64, source string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cur == nil {
		f.cur = map[string]Counters{}
	}
	f.cur[dev] = Counters{HostBytes: host, MediaBytes: media, Source: source, OK: true}
}

func (f *fakeReader) fail(dev string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.cur[dev]
	c.OK = false
	f.cur[dev] = c
}

func (f *fakeReader) ReadCounters(context.Context) (map[string]Counters, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	return maps.Clone(f.cur), nil
}

var errReader = errors.New("controller gone")

// logBuffer captures a sampler's log for assertions.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newTestSampler(t testing.TB, r Reader, opts Options) (*Sampler, *logBuffer) {
	t.Helper()
	lb := &logBuffer{}
	opts.Reader = r
	opts.Logger = slog.New(slog.NewTextHandler(lb, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if opts.Now == nil {
		opts.Now = func() time.Time { return t0 }
	}
	s, err := New(opts)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s, lb
}

// rate is a stretch of constant write rates, per minute.
type rate struct {
	minutes    int
	hostPerMin uint64
	gcPerMin   uint64
}

// feed samples dev once a minute from t0 (one sample at t0, then one per
// minute of each stretch) and returns the time of the last sample.
func feed(t testing.TB, s *Sampler, r *fakeReader, dev string, rates []rate) time.Time {
	t.Helper()
	var host, media uint64 = 1000 * mib, 1200 * mib // a drive that is not new
	now := t0
	r.set(dev, host, media)
	require.NoError(t, s.Sample(context.Background(), now))
	for _, st := range rates {
		for range st.minutes {
			host += st.hostPerMin
			media += st.hostPerMin + st.gcPerMin
			now = now.Add(time.Minute)
			r.set(dev, host, media)
			require.NoError(t, s.Sample(context.Background(), now))
		}
	}
	return now
}

// windowsOf maps window name to result for one device of a snapshot.
func windowsOf(t testing.TB, s *Sampler, dev string) (DeviceWA, map[string]WindowWA) {
	t.Helper()
	for _, d := range s.Snapshot() {
		if d.Device == dev {
			m := map[string]WindowWA{}
			for _, w := range d.Windows {
				m[w.Window] = w
			}
			return d, m
		}
	}
	t.Fatalf("device %s not in snapshot", dev)
	return DeviceWA{}, nil
}
