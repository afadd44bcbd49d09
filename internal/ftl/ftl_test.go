package ftl

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// must fails the test on err. Unlike require.NoError it calls t.Helper only
// on failure: the hot loops below write millions of pages.
func must(t testing.TB, err error) {
	if err != nil {
		t.Helper()
		t.Fatal(err)
	}
}

func smallConfig() Config {
	return Config{LogicalPages: 4096, BlockPages: 32, PageSize: 4096, SpareFactor: 0.2, Streams: 1}
}

func TestConfigValidate(t *testing.T) {
	ok := smallConfig()
	tests := []struct {
		name   string
		mutate func(*Config)
		errSub string
	}{
		{"valid", func(*Config) {}, ""},
		{"zero logical", func(c *Config) { c.LogicalPages = 0 }, "logical pages"},
		{"tiny block", func(c *Config) { c.BlockPages = 1 }, "block pages"},
		{"zero page size", func(c *Config) { c.PageSize = 0 }, "page size"},
		{"no spare", func(c *Config) { c.SpareFactor = 0 }, "spare factor"},
		{"spare too big", func(c *Config) { c.SpareFactor = 0.99 }, "spare factor"},
		{"no streams", func(c *Config) { c.Streams = 0 }, "streams"},
		{"too many streams", func(c *Config) { c.Streams = MaxStreams + 1 }, "streams"},
		{"spare too small for streams", func(c *Config) { c.SpareFactor = 0.01; c.Streams = 8 }, "raise the spare factor"},
		{"bad policy", func(c *Config) { c.Policy = 7 }, "policy"},
		{"page index overflow", func(c *Config) { c.LogicalPages = 1<<32 - 1; c.SpareFactor = 0.5 }, "uint32"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.mutate(&c)
			err := c.Validate()
			if tc.errSub == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.errSub)
			_, err = New(c)
			require.Error(t, err)
		})
	}
}

func TestParsePolicy(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Policy
		err  bool
	}{{"", Greedy, false}, {"greedy", Greedy, false}, {"cost_benefit", CostBenefit, false}, {"cost-benefit", CostBenefit, false}, {"lru", 0, true}} {
		p, err := ParsePolicy(tc.in)
		if tc.err {
			require.Error(t, err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, p)
		require.Equal(t, tc.want.String(), map[Policy]string{Greedy: "greedy", CostBenefit: "cost_benefit"}[p])
	}
}

func TestOutOfRangeIsAnError(t *testing.T) {
	m, err := New(smallConfig())
	require.NoError(t, err)
	require.ErrorContains(t, m.Write(4096, 0), "beyond")
	require.ErrorContains(t, m.Trim(4000, 200), "beyond")
	require.NoError(t, m.Write(0, 99), "unknown stream falls back to stream 0")
	require.Equal(t, uint64(1), m.Counters().HostPages)
	require.NoError(t, m.Check())
}

func TestSequentialFillHasNoGC(t *testing.T) {
	m, err := New(smallConfig())
	require.NoError(t, err)
	for l := uint32(0); l < 4096; l++ {
		must(t, m.Write(l, 0))
	}
	c := m.Counters()
	require.Equal(t, uint64(4096), c.HostPages)
	require.Equal(t, uint64(0), c.GCPages)
	require.Equal(t, uint64(4096), c.ValidPages)
	require.InDelta(t, 1.0, c.WA(), 0)
	// Overwriting the whole space in order invalidates whole blocks: greedy
	// erases them without copying a page.
	for l := uint32(0); l < 4096*3; l++ {
		must(t, m.Write(l%4096, 0))
	}
	c = m.Counters()
	require.Equal(t, uint64(0), c.GCPages)
	require.Positive(t, c.Erases)
	require.NoError(t, m.Check())
}

// TestNoPageIsLost drives random writes, trims and seals against a shadow
// set of live logical pages and checks the model after every batch.
func TestNoPageIsLost(t *testing.T) {
	for _, pol := range []Policy{Greedy, CostBenefit} {
		t.Run(pol.String(), func(t *testing.T) {
			cfg := smallConfig()
			cfg.Streams = 3
			cfg.Policy = pol
			m, err := New(cfg)
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(1, 2))
			live := make([]bool, cfg.LogicalPages)
			var issued uint64
			for batch := 0; batch < 40; batch++ {
				for i := 0; i < 2000; i++ {
					l := rng.Uint32N(cfg.LogicalPages)
					switch r := rng.IntN(100); {
					case r < 3:
						n := rng.Uint32N(64) + 1
						n = min(n, cfg.LogicalPages-l)
						must(t, m.Trim(l, n))
						for j := l; j < l+n; j++ {
							live[j] = false
						}
					case r < 4:
						m.Seal(rng.IntN(cfg.Streams))
					default:
						must(t, m.Write(l, rng.IntN(cfg.Streams)))
						live[l] = true
						issued++
					}
				}
				require.NoError(t, m.Check())
				var n uint64
				for l, ok := range live {
					if ok != m.Mapped(uint32(l)) {
						t.Fatalf("logical page %d: written-and-not-trimmed %v, mapped %v", l, ok, m.Mapped(uint32(l)))
					}
					if ok {
						n++
					}
				}
				c := m.Counters()
				require.Equal(t, n, c.ValidPages)
				require.Equal(t, issued, c.HostPages)
				require.Equal(t, c.HostPages+c.GCPages, c.NANDPages)
			}
			require.Positive(t, m.Counters().GCRuns, "the run must reach garbage collection")
		})
	}
}

func TestWear(t *testing.T) {
	m, err := New(smallConfig())
	require.NoError(t, err)
	w := m.Wear()
	require.Equal(t, Wear{}, w)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 100000; i++ {
		must(t, m.Write(rng.Uint32N(4096), 0))
	}
	w = m.Wear()
	c := m.Counters()
	require.InDelta(t, float64(c.Erases)/float64(m.PhysicalBlocks()), w.Avg, 1e-9)
	require.LessOrEqual(t, w.Min, w.Max)
	require.Positive(t, w.Max)
}

func TestDeterministic(t *testing.T) {
	run := func() Counters {
		cfg := smallConfig()
		cfg.Policy = CostBenefit
		m, err := New(cfg)
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(42, 42))
		for i := 0; i < 50000; i++ {
			must(t, m.Write(rng.Uint32N(4096), 0))
		}
		return m.Counters()
	}
	require.Equal(t, run(), run())
}
