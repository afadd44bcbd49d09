package simload

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

func defaultRules(t *testing.T) *Rules {
	t.Helper()
	r, err := CompileRules(DefaultRules())
	require.NoError(t, err)
	return r
}

func TestRules(t *testing.T) {
	r := defaultRules(t)
	for _, tc := range []struct {
		file string
		want uint8
	}{
		{"ib_logfile0", 1},
		{"#ib_redo12", 1},
		{"/data/mysql-1/data/#innodb_redo/#ib_redo12", 1},
		{"binlog.000042", 2},
		{"binlog.index", 2},
		{"tpcc/stock.ibd", 3},
		{"#ib_16384_0.dblwr", 4},
		{"undo_002", 5},
		{"hot.dat", 1},
		{"cold.dat", 2},
		{"ibdata1", 0},
		{"x.ibd.bak", 0}, // anchored: the whole name must match
	} {
		require.Equal(t, tc.want, r.Stream(tc.file), tc.file)
	}
	require.Equal(t, uint8(5), r.MaxID())
	var nilRules *Rules
	require.Equal(t, uint8(0), nilRules.Stream("binlog.1"))
	require.Equal(t, uint8(0), nilRules.MaxID())
}

func TestParseRules(t *testing.T) {
	tests := []struct {
		name, text string
		want       []Rule
		errSub     string
	}{
		{"astream-like", "# redo first\n1 ib_logfile.*|#ib_redo.*\n\n2 binlog\\..*\n  3   .*\\.ibd  \n",
			[]Rule{{`ib_logfile.*|#ib_redo.*`, 1}, {`binlog\..*`, 2}, {`.*\.ibd`, 3}}, ""},
		{"empty", "", nil, ""},
		{"missing regex", "1\n", nil, "want"},
		{"bad stream", "x foo\n", nil, "not a number"},
		{"stream too big", "16 foo\n", nil, "above"},
		{"stream overflow", "300 foo\n", nil, "not a number"},
		{"bad regex", "1 (\n", nil, "rule 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseRules(tc.text)
			if tc.errSub != "" {
				require.ErrorContains(t, err, tc.errSub)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, r.Rules())
		})
	}
	_, err := CompileRules([]Rule{{Match: "", Stream: 1}})
	require.ErrorContains(t, err, "empty match")
}

func FuzzParseRules(f *testing.F) {
	f.Add("1 ib_logfile.*|#ib_redo.*\n2 binlog\\..*\n")
	f.Add("# comment\n\n3 .*\\.ibd\n")
	f.Add("x\n")
	f.Fuzz(func(t *testing.T, text string) {
		r, err := ParseRules(text)
		if err != nil {
			return
		}
		for _, rule := range r.Rules() {
			require.LessOrEqual(t, rule.Stream, uint8(MaxStream))
		}
		_ = r.Stream("binlog.000001")
	})
}

func TestParseDiskstats(t *testing.T) {
	b, err := os.ReadFile("testdata/diskstats")
	require.NoError(t, err)
	for _, tc := range []struct {
		dev    string
		want   uint64
		errSub string
	}{
		{"nvme0n1", 800000, ""},
		{"nvme0n1p1", 320, ""},
		{"sda", 16, ""},
		{"nvme1n1", 0, "no device"},
	} {
		got, err := ParseDiskstats(b, tc.dev)
		if tc.errSub != "" {
			require.ErrorContains(t, err, tc.errSub)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, tc.want, got, tc.dev)
	}
	_, err = ParseDiskstats([]byte(" 8 0 sda 1 2 3\n"), "sda")
	require.ErrorContains(t, err, "fields")
	_, err = ParseDiskstats([]byte(" 8 0 sda 1 2 3 4 5 6 -7 8\n"), "sda")
	require.ErrorContains(t, err, "sectors written")
}

func FuzzParseDiskstats(f *testing.F) {
	b, err := os.ReadFile("testdata/diskstats")
	require.NoError(f, err)
	f.Add(b, "nvme0n1")
	f.Add([]byte(" 8 0 sda 1\n"), "sda")
	f.Fuzz(func(t *testing.T, data []byte, dev string) {
		_, _ = ParseDiskstats(data, dev)
	})
}

// TestDiskstatsRate rewrites a fixture diskstats between steps, as the
// kernel's counters move under a running database.
func TestDiskstatsRate(t *testing.T) {
	dir := t.TempDir()
	write := func(sectors uint64) {
		line := " 259 0 nvme0n1 1 0 8 1 1 0 " + strconv.FormatUint(sectors, 10) + " 1 0 1 1\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, "diskstats"), []byte(line), 0o644))
	}
	d, err := NewDiskstatsRate(dir, "nvme0n1")
	require.NoError(t, err)
	_, err = d.Delta()
	require.Error(t, err, "file missing")
	for _, step := range []struct {
		sectors, want uint64
	}{
		{1000, 0},          // baseline
		{1000, 0},          // idle
		{3000, 2000 * 512}, // 1 MB written
		{10, 0},            // counter reset: new baseline
		{20, 10 * 512},
	} {
		write(step.sectors)
		got, err := d.Delta()
		require.NoError(t, err)
		require.Equal(t, step.want, got, "sectors %d", step.sectors)
	}
	for _, bad := range []string{"", "a/b", "nvme0n1 x"} {
		_, err := NewDiskstatsRate(dir, bad)
		require.Error(t, err, bad)
	}
}
