package wa

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRestartResumesWindows(t *testing.T) {
	tests := []struct {
		name     string
		downtime time.Duration
		want     map[string]want // after restart, before any new sample
	}{
		{
			name:     "quick restart keeps every window",
			downtime: 30 * time.Second,
			want: map[string]want{
				"1h":  {3.0, true, 3600},
				"24h": {39000.0 / 18000.0, true, 3 * 3600},
				"run": {39000.0 / 18000.0, true, 3 * 3600},
			},
		},
		{
			// Samples older than the longest window (2h here) at restart
			// time are dropped on load; the run mark survives.
			name:     "down for an hour",
			downtime: time.Hour,
			want: map[string]want{
				"1h":  {3.0, true, 3600},
				"2h":  {3.0, true, 3600}, // only the last hour is still inside 2h
				"run": {39000.0 / 18000.0, true, 3 * 3600},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state", "wa.state")
			windows := []time.Duration{time.Hour, 24 * time.Hour}
			if _, two := tc.want["2h"]; two {
				windows = []time.Duration{time.Hour, 2 * time.Hour}
			}
			r := &fakeReader{}
			// fsync per sample would make this test slow; one explicit Flush is the same file.
			s1, _ := newTestSampler(t, r, Options{StatePath: path, Windows: windows, PersistEvery: 1000})
			last := feed(t, s1, r, "nvme0", []rate{{60, 100 * mib, 50 * mib}, {60, 100 * mib, 100 * mib}, {60, 100 * mib, 200 * mib}})
			require.NoError(t, s1.Flush())
			_, before := windowsOf(t, s1, "nvme0")
			require.NoError(t, s1.Close())

			restart := last.Add(tc.downtime)
			s2, logs := newTestSampler(t, r, Options{StatePath: path, Windows: windows, Now: func() time.Time { return restart }})
			require.Contains(t, logs.String(), "resumed write-amplification history")
			_, after := windowsOf(t, s2, "nvme0")
			for name, w := range tc.want {
				require.Equal(t, w, want{after[name].WA, after[name].HasWA, after[name].Seconds}, name)
			}
			if tc.downtime < time.Minute {
				require.Equal(t, before, after, "same values as before the restart")
			}

			// Sampling continues across the gap.
			h, m := r.cur["nvme0"].HostBytes, r.cur["nvme0"].MediaBytes
			r.set("nvme0", h+10*mib, m+20*mib)
			require.NoError(t, s2.Sample(context.Background(), restart.Add(time.Minute)))
			d, _ := windowsOf(t, s2, "nvme0")
			require.Equal(t, uint64(0), d.Resets)
		})
	}
}

func TestUnusableStateFileMeansFreshStart(t *testing.T) {
	valid := encodeState(nil, state{SavedAt: t0.UnixMilli(), Devices: []deviceState{{
		Name: "nvme0", Source: "test", Mark: runMark{T: t0.UnixMilli()},
		Samples: []sample{{T: t0.UnixMilli(), Host: 1, Media: 2}, {T: t0.Add(time.Minute).UnixMilli(), Host: 3, Media: 5}},
	}}})
	flip := func(i int) []byte { b := append([]byte(nil), valid...); b[i] ^= 0x40; return b }
	future := append([]byte(nil), valid...)
	binary.LittleEndian.PutUint16(future[8:], 99)

	tests := []struct {
		name    string
		content []byte
		logged  string
	}{
		{"empty", []byte{}, "state file is empty"},
		{"truncated header", valid[:10], "truncated"},
		{"truncated payload", valid[:len(valid)-7], "truncated or appended to"},
		{"trailing garbage", append(append([]byte(nil), valid...), 0, 0, 0), "truncated or appended to"},
		{"corrupt byte in a sample", flip(len(valid) - 3), "checksum mismatch"},
		{"future version", future, "version 99"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "wa.state")
			require.NoError(t, os.WriteFile(path, tc.content, 0o644))
			r := &fakeReader{}
			s, logs := newTestSampler(t, r, Options{StatePath: path, Now: func() time.Time { return t0.Add(2 * time.Minute) }})
			require.Contains(t, logs.String(), "level=WARN")
			require.Contains(t, logs.String(), "ignoring unusable write-amplification state file")
			require.Contains(t, logs.String(), tc.logged)
			require.Empty(t, s.Snapshot(), "fresh start")

			r.set("nvme0", 10, 20)
			require.NoError(t, s.Sample(context.Background(), t0.Add(3*time.Minute)))
			st, err := loadState(path, minStateCap)
			require.NoError(t, err, "the bad walab file was replaced by a good one")
			require.Len(t, st.Devices, 1)
			d, _ := windowsOf(t, s, "nvme0")
			require.Equal(t, 1, d.Samples)
		})
	}
}

func TestMissingStateFileIsAQuietFreshStart(t *testing.T) {
	s, logs := newTestSampler(t, &fakeReader{}, Options{StatePath: filepath.Join(t.TempDir(), "none", "wa.state")})
	require.Empty(t, s.Snapshot())
	require.NotContains(t, logs.String(), "WARN")
	require.Contains(t, logs.String(), "no write-amplification state file")
}

func TestStateRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		st   state
	}{
		{"no devices", state{SavedAt: 1}},
		{"pending mark, no samples", state{SavedAt: 2, Devices: []deviceState{{Name: "nvme3", Mark: runMark{T: 5, Pending: true}, Samples: []sample{}}}}},
		{"lost mark (counters reset after it)", state{SavedAt: 4, Devices: []deviceState{{Name: "nvme2", Source: "ocp_c0", Resets: 1, Mark: runMark{T: 7, Host: 9, Media: 11, Lost: true}, Samples: []sample{{8, 1, 1}}}}}},
		{"two devices", state{SavedAt: 3, Devices: []deviceState{
			{Name: "nvme0", Source: "ocp_c0", Resets: 2, Mark: runMark{T: 10, Host: 1, Media: 2}, Samples: []sample{{10, 1, 2}, {20, 1 << 62, 1<<63 + 5}}},
			{Name: "nvme1", Source: "seed000_c0", Mark: runMark{T: -1}, Samples: []sample{{-5, 0, 0}}},
		}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := encodeState(nil, tc.st)
			got, err := decodeState(b)
			require.NoError(t, err)
			if got.Devices == nil {
				got.Devices = tc.st.Devices
			}
			require.Equal(t, tc.st, got)
		})
	}
}

func TestDecodeStateRejects(t *testing.T) {
	dev := func(name string, samples ...sample) deviceState {
		return deviceState{Name: name, Samples: samples}
	}
	tests := []struct {
		name string
		st   state
		err  string
	}{
		{"duplicate device", state{Devices: []deviceState{dev("a"), dev("a")}}, "duplicate"},
		{"empty device name", state{Devices: []deviceState{dev("")}}, "empty or duplicate"},
		{"samples out of order", state{Devices: []deviceState{dev("a", sample{T: 5}, sample{T: 5})}}, "out of time order"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeState(encodeState(nil, tc.st))
			require.ErrorContains(t, err, tc.err)
		})
	}
}
