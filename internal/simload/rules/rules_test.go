package rules

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func defaultTable(t *testing.T) *Table {
	t.Helper()
	r, err := Compile(Default())
	require.NoError(t, err)
	return r
}

func TestRules(t *testing.T) {
	r := defaultTable(t)
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
	var nilRules *Table
	require.Equal(t, uint8(0), nilRules.Stream("binlog.1"))
	require.Equal(t, uint8(0), nilRules.MaxID())
}

func TestParse(t *testing.T) {
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
			r, err := Parse(tc.text)
			if tc.errSub != "" {
				require.ErrorContains(t, err, tc.errSub)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, r.List())
		})
	}
	_, err := Compile([]Rule{{Match: "", Stream: 1}})
	require.ErrorContains(t, err, "empty match")
}

func FuzzParse(f *testing.F) {
	f.Add("1 ib_logfile.*|#ib_redo.*\n2 binlog\\..*\n")
	f.Add("# comment\n\n3 .*\\.ibd\n")
	f.Add("x\n")
	f.Fuzz(func(t *testing.T, text string) {
		r, err := Parse(text)
		if err != nil {
			return
		}
		for _, rule := range r.List() {
			require.LessOrEqual(t, rule.Stream, uint8(MaxStream))
		}
		_ = r.Stream("binlog.000001")
	})
}
