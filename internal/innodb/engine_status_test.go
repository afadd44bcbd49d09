package innodb

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/walab/walab/internal/golden"

	"github.com/stretchr/testify/require"
)

func TestParseEngineStatusGolden(t *testing.T) {
	for _, name := range []string{"mysql-5.7", "mysql-8.0", "mariadb-10.5", "mariadb-10.11"} {
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", name+".txt"))
			require.NoError(t, err)
			st, err := ParseEngineStatus(string(in))
			require.NoError(t, err)
			age, ok := st.CheckpointAge()
			got, err := json.MarshalIndent(struct {
				EngineStatus
				CheckpointAge   uint64
				CheckpointAgeOK bool
			}{st, age, ok}, "", "  ")
			require.NoError(t, err)
			golden.Assert(t, filepath.Join("testdata", name+".golden.json"), append(got, '\n'))
		})
	}
}

// Spot checks of the golden values against the fixture text, so the goldens
// cannot silently drift into accepting a wrong parse.
func TestParseEngineStatusValues(t *testing.T) {
	tests := []struct {
		file                 string
		lsn, ckpt, hll       uint64
		aioR, aioW           uint64
		logFsync, poolFsync  uint64
		pendReads, pendFlush uint64
		has                  Fields
	}{
		{"mysql-5.7", 412883102944, 412550987001, 2417, 3, 7, 1, 2, 4, 12, HasPendingAIO | HasPendingLogFlushes},
		{"mysql-8.0", 9120334411, 8990100000, 118, 3, 5, 0, 4, 2, 9, HasPendingAIO},
		{"mariadb-10.5", 2201334455, 2190001000, 51, 0, 0, 0, 0, 0, 0, HasPendingLogFlushes},
		{"mariadb-10.11", 10356143, 44404, 4, 0, 0, 0, 0, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", tc.file+".txt"))
			require.NoError(t, err)
			st, err := ParseEngineStatus(string(in))
			require.NoError(t, err)
			require.Equal(t, tc.lsn, st.LSN)
			require.Equal(t, tc.ckpt, st.LastCheckpointLSN)
			age, ok := st.CheckpointAge()
			require.True(t, ok)
			require.Equal(t, tc.lsn-tc.ckpt, age)
			require.Equal(t, tc.hll, st.HistoryListLength)
			require.Equal(t, tc.aioR, st.PendingAIOReads)
			require.Equal(t, tc.aioW, st.PendingAIOWrites)
			require.Equal(t, tc.logFsync, st.PendingLogFsyncs)
			require.Equal(t, tc.poolFsync, st.PendingPoolFsyncs)
			require.Equal(t, tc.pendReads, st.PendingReads, "global pending reads, not a per-pool one")
			require.Equal(t, tc.pendFlush, st.PendingWritesFlush)
			require.Equal(t, tc.has, st.Has&(HasPendingAIO|HasPendingLogFlushes))
		})
	}
}

func TestParseEngineStatusErrors(t *testing.T) {
	_, err := ParseEngineStatus("")
	require.ErrorIs(t, err, ErrNotMonitorOutput)
	_, err = ParseEngineStatus("hello\nworld")
	require.ErrorIs(t, err, ErrNotMonitorOutput)
	_, err = ParseEngineStatus("---\nLOG\n---\nLog sequence number 12x4\n")
	require.ErrorContains(t, err, `line 4 "Log sequence number 12x4"`)
	_, err = ParseEngineStatus("Log sequence number 10\nPending normal aio reads: [0, 1 , aio writes: [0] ,\n")
	require.Error(t, err)
	// A truncated output keeps what it has; the checkpoint is unknown, not 0.
	st, err := ParseEngineStatus("Log sequence number 10\nLog flushed up to 10\n")
	require.NoError(t, err)
	_, ok := st.CheckpointAge()
	require.False(t, ok)
	// A checkpoint ahead of the LSN is inconsistent: no age rather than a huge one.
	st, err = ParseEngineStatus("Log sequence number 10\nLast checkpoint at 20\n")
	require.NoError(t, err)
	_, ok = st.CheckpointAge()
	require.False(t, ok)
}

func FuzzParseEngineStatus(f *testing.F) {
	for _, name := range []string{"mysql-5.7", "mysql-8.0", "mariadb-10.5", "mariadb-10.11"} {
		b, err := os.ReadFile(filepath.Join("testdata", name+".txt"))
		require.NoError(f, err)
		f.Add(string(b))
	}
	f.Add("Pending normal aio reads: 0 [ , aio writes: ]\nLog sequence number 1")
	f.Fuzz(func(t *testing.T, s string) {
		st, err := ParseEngineStatus(s)
		if err != nil {
			return
		}
		if age, ok := st.CheckpointAge(); ok && age > st.LSN {
			t.Fatalf("checkpoint age %d beyond LSN %d", age, st.LSN)
		}
		if !strings.Contains(s, "Log sequence number") {
			t.Fatal("parsed without an LSN line")
		}
	})
}

// TestParseEngineStatusTwoWordLSN: MySQL <= 5.1 prints LSNs as two 32-bit
// words; reading only the second one published a wrong LSN and checkpoint
// age. They are decoded (208·2³² + 1379356250), and a malformed form is an
// error, never a number.
func TestParseEngineStatusTwoWordLSN(t *testing.T) {
	const log51 = `---
LOG
---
Log sequence number 208 1379356250
Log flushed up to   208 1379356250
Last checkpoint at  208 1379000000
0 pending log writes, 0 pending chkp writes
`
	st, err := ParseEngineStatus(log51)
	require.NoError(t, err)
	require.Equal(t, uint64(208)<<32+1379356250, st.LSN)
	require.Equal(t, uint64(208)<<32+1379000000, st.LastCheckpointLSN)
	age, ok := st.CheckpointAge()
	require.True(t, ok)
	require.Equal(t, uint64(356250), age)

	for _, bad := range []string{"Log sequence number 208 1379356250 7", "Log sequence number 4294967296 1", "Log sequence number 1 x"} {
		_, err := ParseEngineStatus(bad + "\n")
		require.Error(t, err, bad)
	}
}
