package device

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/simfs/fileclass"
)

func TestPolicy(t *testing.T) {
	base, err := Placement{Default: 2}.Compile()
	require.NoError(t, err)
	require.Equal(t, []uint16{2}, base.Handles())
	require.Equal(t, "one handle: 2", base.String())
	require.Equal(t, uint16(2), base.Handle("db/t.ibd", fileclass.Data))

	p, err := Placement{
		Classes: map[string]uint16{"redo": 1, "doublewrite": 2, "data": 3, "undo": 3},
		Rules:   []Rule{{Pattern: "sbtest/*.ibd", Handle: 4}, {Pattern: "mysql-bin.*", Handle: 5}},
	}.Compile()
	require.NoError(t, err)
	require.Equal(t, uint16(1), p.Handle("ib_logfile0", fileclass.Redo))
	require.Equal(t, uint16(3), p.Handle("db/t.ibd", fileclass.Data))
	require.Equal(t, uint16(4), p.Handle("sbtest/sbtest1.ibd", fileclass.Data), "a pattern with a slash matches the path")
	require.Equal(t, uint16(5), p.Handle("mysql-bin.000001", fileclass.Binlog), "a rule before the class")
	require.Equal(t, uint16(0), p.Handle("aria_log.00000001", fileclass.Other), "default")
	require.Equal(t, []uint16{0, 1, 2, 3, 4, 5}, p.Handles())
	require.Equal(t, "rules: sbtest/*.ibd=4 mysql-bin.*=5; classes: redo=1 doublewrite=2 data=3 undo=3 binlog=0 system=0 other=0", p.String())

	_, err = Placement{Classes: map[string]uint16{"redolog": 1}}.Compile()
	require.ErrorContains(t, err, `class "redolog": want one of redo, doublewrite`)
	_, err = Placement{Rules: []Rule{{Pattern: "[", Handle: 1}}}.Compile()
	require.ErrorContains(t, err, "not a valid path.Match pattern")
}
