package wa

import (
	"context"
	"encoding/json"
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
	require.Equal(t, []Mark{{Device: "nvme0", Start: clock, Seconds: float64(clock.Unix()), Pending: true}}, marks)
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
