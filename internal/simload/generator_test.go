package simload

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/walab/walab/internal/ftl"
)

func TestSpecValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Spec)
		errSub string
	}{
		{"defaults", func(*Spec) {}, ""},
		{"unknown", func(s *Spec) { s.Name = "tpcc" }, "unknown workload"},
		{"fill order", func(s *Spec) { s.FillStart, s.FillMax = 0.9, 0.5 }, "below fill_start"},
		{"fill above 1", func(s *Spec) { s.FillMax = 1.5 }, "fill_max"},
		{"negative weight", func(s *Spec) { s.Mix.Redo = -1 }, "mysql.redo"},
		{"hot space 1", func(s *Spec) { s.HotSpace = 1 }, "hot_space"},
		{"io too big", func(s *Spec) { s.IOPages = 5000 }, "io_pages"},
		{"huge retain", func(s *Spec) { s.Mix.BinlogRetainSpace = 0.95 }, "binlog_retain_space"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Spec{}.WithDefaults()
			tc.mutate(&s)
			err := s.Validate()
			if tc.errSub == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.errSub)
			_, err = New(s, 1<<16, nil, 1)
			require.Error(t, err)
		})
	}
	_, err := New(Spec{Name: "uniform"}, 100, nil, 1)
	require.ErrorContains(t, err, "too small")
	_, err = New(Spec{Name: "mysql", FillMax: 0.05, FillStart: 0.02}, 1<<16, nil, 1)
	require.ErrorContains(t, err, "before any data")
	_, err = New(Spec{Name: "uniform", IOPages: 512, FillStart: 0.01}, 1<<16, nil, 1)
	require.ErrorContains(t, err, "fewer than 4 commands")
}

// run drives a generator on a model: prefill, then host pages of steady
// traffic (warm up, then measure); it returns the measured WA.
func run(t *testing.T, g Generator, m *ftl.Model, placement bool, warm, measure uint64) float64 {
	t.Helper()
	for _, op := range g.Prefill() {
		_, err := Apply(m, op, placement)
		require.NoError(t, err)
	}
	var written uint64
	var before ftl.Counters
	for written < warm+measure {
		if written >= warm && before.HostPages == 0 {
			before = m.Counters()
		}
		n, err := Apply(m, g.Next(), placement)
		if err != nil {
			t.Fatal(err)
		}
		written += uint64(n)
	}
	after := m.Counters()
	return float64(after.NANDPages-before.NANDPages) / float64(after.HostPages-before.HostPages)
}

func model(t *testing.T, logical uint32, streams int) *ftl.Model {
	t.Helper()
	m, err := ftl.New(ftl.Config{LogicalPages: logical, BlockPages: 64, PageSize: 4096, SpareFactor: 0.1, Streams: streams})
	require.NoError(t, err)
	return m
}

func TestGeneratorsStayInRangeAndAreDeterministic(t *testing.T) {
	const logical = 1 << 15
	table := defaultRules(t)
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			ops := func() []Op {
				g, err := New(Spec{Name: name, IOPages: 4}, logical, table, 42)
				require.NoError(t, err)
				require.Equal(t, name, g.Name())
				out := g.Prefill()
				for i := 0; i < 20000; i++ {
					out = append(out, g.Next())
				}
				return out
			}
			a := ops()
			require.Equal(t, a, ops(), "same seed, same traffic")
			for _, op := range a {
				require.Positive(t, op.Pages)
				require.LessOrEqual(t, uint64(op.LPN)+uint64(op.Pages), uint64(logical), "%+v", op)
			}
		})
	}
}

func TestHotColdSkew(t *testing.T) {
	g, err := New(Spec{Name: "hotcold", HotAccess: 0.9, HotSpace: 0.1, FillStart: 0.8}, 1<<16, defaultRules(t), 7)
	require.NoError(t, err)
	hotEnd := g.(*synthetic).hot
	require.InDelta(t, 0.1*0.8*(1<<16), float64(hotEnd), 1)
	var hot int
	const n = 100000
	for i := 0; i < n; i++ {
		op := g.Next()
		require.Equal(t, op.LPN < hotEnd, op.Class == 0)
		if op.Class == 0 {
			hot++
			require.Equal(t, uint8(1), op.Stream)
		} else {
			require.Equal(t, uint8(2), op.Stream)
		}
	}
	require.InDelta(t, 0.9, float64(hot)/n, 0.01)
}

func TestSequentialWAIsOne(t *testing.T) {
	const logical = 1 << 15
	g, err := New(Spec{Name: "sequential", FillStart: 0.9, IOPages: 8}, logical, nil, 1)
	require.NoError(t, err)
	wa := run(t, g, model(t, logical, 1), false, 4*logical, 2*logical)
	require.InDelta(t, 1.0, wa, 1e-9)
}

func TestMySQLMixShape(t *testing.T) {
	const logical = 1 << 16
	table := defaultRules(t)
	g, err := New(Spec{Name: "mysql", FillStart: 0.65, FillMax: 0.9, Mix: MySQLMix{Growth: 0.1}}, logical, table, 3)
	require.NoError(t, err)
	mix := g.(*mysqlMix)
	m := model(t, logical, 6)
	for _, op := range g.Prefill() {
		_, err := Apply(m, op, true)
		require.NoError(t, err)
	}
	require.InDelta(t, 0.65, float64(m.Counters().ValidPages)/logical, 0.01, "starts at fill_start")

	streams := make([]uint8, len(mysqlFiles))
	for i, f := range mysqlFiles {
		streams[i] = table.Stream(f)
	}
	prefill := m.Counters().HostPages
	bytesBy := map[uint8]uint64{}
	var trims, total int
	for written := 0; written < 20*logical; {
		op := g.Next()
		if op.Trim {
			trims++
			if op.Class != classBinlog || op.Pages != mix.binFile {
				t.Fatalf("trim %+v is not a whole binlog file", op)
			}
		} else {
			bytesBy[op.Class] += uint64(op.Pages)
			total += int(op.Pages)
			if op.Stream != streams[op.Class] {
				t.Fatalf("op %+v: stream %d, rules say %d", op, op.Stream, streams[op.Class])
			}
		}
		n, err := Apply(m, op, true)
		if err != nil {
			t.Fatal(err)
		}
		written += int(n)
	}
	require.NoError(t, m.Check())
	require.Equal(t, prefill+uint64(total), m.Counters().HostPages, "host pages are exactly what the workload issued")
	require.Positive(t, trims, "binlog expiry deallocates files")
	fill := float64(m.Counters().ValidPages) / logical
	require.Greater(t, fill, 0.8, "data grows toward fill_max")
	require.LessOrEqual(t, fill, 0.9)
	require.Equal(t, mix.dataMax, mix.DataPages(), "growth stops at fill_max")
	// Byte shares follow the mix weights (defaults).
	want := map[uint8]float64{classRedo: 0.20, classDoublewrite: 0.30, classUndo: 0.05, classBinlog: 0.15, classData: 0.30}
	for c, w := range want {
		require.InDelta(t, w, float64(bytesBy[c])/float64(total), 0.03, "class %s", g.Classes()[c])
	}
}
