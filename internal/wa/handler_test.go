package wa

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRunStartHandler(t *testing.T) {
	type call struct {
		method, query string
		code          int
		devices       []string // devices in the JSON answer, in order
	}
	tests := []struct {
		name  string
		calls []call
	}{
		{"GET lists every device's mark", []call{{"GET", "", 200, []string{"nvme0", "nvme1"}}}},
		{"POST without device marks all", []call{{"POST", "", 200, []string{"nvme0", "nvme1"}}}},
		{"POST one device", []call{{"POST", "?device=nvme1", 200, []string{"nvme1"}}, {"GET", "", 200, []string{"nvme0", "nvme1"}}}},
		{"POST unknown device", []call{{"POST", "?device=nvme9", 404, nil}}},
		{"PUT is not allowed", []call{{"PUT", "", 405, nil}}},
		{"DELETE is not allowed", []call{{"DELETE", "?device=nvme0", 405, nil}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &fakeReader{}
			s, _ := newTestSampler(t, r, Options{})
			r.set("nvme0", 0, 0)
			r.set("nvme1", 0, 0)
			require.NoError(t, s.Sample(context.Background(), t0))
			for _, c := range tc.calls {
				rec := httptest.NewRecorder()
				s.Handler().ServeHTTP(rec, httptest.NewRequest(c.method, RunStartPath+c.query, nil))
				require.Equal(t, c.code, rec.Code, rec.Body.String())
				require.Equal(t, "application/json", rec.Header().Get("Content-Type"))
				if c.code == http.StatusMethodNotAllowed {
					require.Equal(t, "GET, HEAD, POST", rec.Header().Get("Allow"))
				}
				if c.code != http.StatusOK {
					var e errorResponse
					require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &e))
					require.NotEmpty(t, e.Error)
					continue
				}
				var got marksResponse
				require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
				names := []string{}
				for _, m := range got.Marks {
					names = append(names, m.Device)
				}
				require.Equal(t, c.devices, names)
			}
		})
	}
}

func TestRunStartMarkMovesRunWindow(t *testing.T) {
	r := &fakeReader{}
	clock := t0
	s, _ := newTestSampler(t, r, Options{Now: func() time.Time { return clock }})
	ctx := context.Background()
	r.set("nvme0", 0, 0)
	r.set("nvme1", 0, 0)
	require.NoError(t, s.Sample(ctx, t0))
	r.set("nvme0", 100, 500) // WA 5 before the mark
	r.set("nvme1", 100, 500)
	require.NoError(t, s.Sample(ctx, t0.Add(time.Minute)))

	// The mark reads the counters itself, so writes between the last tick
	// and the POST are not counted in the new run.
	clock = t0.Add(90 * time.Second)
	r.set("nvme0", 200, 700)
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest("POST", RunStartPath+"?device=nvme0", strings.NewReader("")))
	require.Equal(t, 200, rec.Code)
	require.JSONEq(t, `{"marks":[{"device":"nvme0","start":"2026-12-01T00:01:30Z","start_timestamp_seconds":1796083290,"pending":false}]}`, rec.Body.String())

	r.set("nvme0", 300, 850) // 100 host, 150 media since the mark
	r.set("nvme1", 300, 900)
	require.NoError(t, s.Sample(ctx, t0.Add(2*time.Minute)))
	_, w0 := windowsOf(t, s, "nvme0")
	require.Equal(t, want{1.5, true, 30}, want{w0["run"].WA, w0["run"].HasWA, w0["run"].Seconds})
	require.Equal(t, want{850.0 / 300, true, 120}, want{w0["1h"].WA, w0["1h"].HasWA, w0["1h"].Seconds}, "rolling windows ignore marks")
	_, w1 := windowsOf(t, s, "nvme1")
	require.Equal(t, want{3.0, true, 120}, want{w1["run"].WA, w1["run"].HasWA, w1["run"].Seconds}, "the other device keeps its run")
}

func TestRunStartMarkWithUnreadableCountersIsPending(t *testing.T) {
	r := &fakeReader{}
	clock := t0
	s, logs := newTestSampler(t, r, Options{Now: func() time.Time { return clock }})
	ctx := context.Background()
	r.set("nvme0", 10, 10)
	require.NoError(t, s.Sample(ctx, t0))

	clock = t0.Add(time.Minute)
	r.err = errReader
	marks, err := s.MarkRunStart(ctx, "")
	require.NoError(t, err)
	require.Equal(t, []Mark{{Device: "nvme0", Start: clock, Seconds: float64(clock.Unix()), Pending: true, Error: "counters unreadable: controller gone"}}, marks)
	require.Contains(t, logs.String(), "counters unreadable")
	d, w := windowsOf(t, s, "nvme0")
	require.True(t, d.RunPending)
	_, hasRun := w["run"]
	require.False(t, hasRun, "no run window until a baseline exists")

	// The next good sample is the baseline and the run's start.
	r.err = nil
	r.set("nvme0", 20, 30)
	require.NoError(t, s.Sample(ctx, t0.Add(2*time.Minute)))
	r.set("nvme0", 30, 60)
	require.NoError(t, s.Sample(ctx, t0.Add(3*time.Minute)))
	d, w = windowsOf(t, s, "nvme0")
	require.Equal(t, t0.Add(2*time.Minute), d.RunStart.UTC())
	require.Equal(t, want{3.0, true, 60}, want{w["run"].WA, w["run"].HasWA, w["run"].Seconds})
}

func TestRunStartMarkSurvivesRestart(t *testing.T) {
	path := t.TempDir() + "/wa.state"
	r := &fakeReader{}
	clock := t0
	s1, _ := newTestSampler(t, r, Options{StatePath: path, Now: func() time.Time { return clock }})
	r.set("nvme0", 10, 10)
	require.NoError(t, s1.Sample(context.Background(), t0))
	clock = t0.Add(30 * time.Second)
	_, err := s1.MarkRunStart(context.Background(), "nvme0")
	require.NoError(t, err)
	require.NoError(t, s1.Close())

	s2, _ := newTestSampler(t, r, Options{StatePath: path, Now: func() time.Time { return clock }})
	require.Equal(t, s1.Marks(), s2.Marks())
}

// A mark on a device with no history yet must survive a failed sample.
func TestRunStartMarkSurvivesFailedSampleWithoutHistory(t *testing.T) {
	r := &fakeReader{}
	clock := t0
	s, _ := newTestSampler(t, r, Options{Now: func() time.Time { return clock }})
	ctx := context.Background()
	r.set("nvme0", 100, 150)
	_, err := s.MarkRunStart(ctx, "nvme0")
	require.NoError(t, err)

	r.fail("nvme0") // this device fails; the sample itself succeeds
	require.NoError(t, s.Sample(ctx, t0.Add(time.Minute)))

	r.set("nvme0", 200, 350)
	require.NoError(t, s.Sample(ctx, t0.Add(2*time.Minute)))
	d, w := windowsOf(t, s, "nvme0")
	require.Equal(t, t0, d.RunStart.UTC(), "the mark's baseline, not the first later sample")
	require.Equal(t, want{2.0, true, 120}, want{w["run"].WA, w["run"].HasWA, w["run"].Seconds})
}

// deviceReader is a fakeReader that can read one device alone, and says
// which reads it served.
type deviceReader struct {
	fakeReader
	all, one []string
}

func (d *deviceReader) ReadCounters(ctx context.Context) (map[string]Counters, error) {
	d.all = append(d.all, "all")
	return d.fakeReader.ReadCounters(ctx)
}

func (d *deviceReader) ReadCountersOf(ctx context.Context, names []string) (map[string]Counters, error) {
	d.one = append(d.one, names...)
	m, err := d.fakeReader.ReadCounters(ctx)
	for k := range m {
		if k != names[0] {
			delete(m, k)
		}
	}
	return m, err
}

// TestRunStartPerDevice (issue 33 item 8): a run-start for one device reads
// that device only (a hung neighbour cannot slow it), and a run-start for
// all answers for every device, the unreadable one as pending with the
// reason, never left out to be marked later without a word.
func TestRunStartPerDevice(t *testing.T) {
	r := &deviceReader{}
	s, _ := newTestSampler(t, r, Options{})
	ctx := context.Background()
	r.set("nvme0", 10, 10)
	r.set("nvme1", 10, 10)
	require.NoError(t, s.Sample(ctx, t0))
	r.all = nil

	marks, err := s.MarkRunStart(ctx, "nvme1")
	require.NoError(t, err)
	require.Len(t, marks, 1)
	require.Equal(t, "nvme1", marks[0].Device)
	require.False(t, marks[0].Pending)
	require.Equal(t, []string{"nvme1"}, r.one)
	require.Empty(t, r.all, "the other devices are not read")

	// nvme2 appears but cannot be read (hung): it is in the answer.
	r.set("nvme2", 0, 0)
	r.fail("nvme2")
	r.mu.Lock()
	c := r.cur["nvme2"]
	c.Err = errors.New("nvme2: device hung")
	r.cur["nvme2"] = c
	r.mu.Unlock()
	marks, err = s.MarkRunStart(ctx, "")
	require.NoError(t, err)
	require.Len(t, marks, 3)
	require.Equal(t, "nvme2", marks[2].Device)
	require.True(t, marks[2].Pending)
	require.Contains(t, marks[2].Error, "device hung")
	require.Empty(t, marks[0].Error)
}
