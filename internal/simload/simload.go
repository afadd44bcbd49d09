// Package simload generates the host traffic that drives the FTL model
// (internal/ftl): synthetic uniform, hot/cold and sequential writes, and a
// MySQL-like mix of redo, binlog, doublewrite, data and undo files. Every
// generator is deterministic for its seed and works in fractions of the
// logical space, so a scaled-down drive sees the same pattern.
package simload

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/walab/walab/internal/simload/rules"
)

// Op is one host command: a write or a deallocation of Pages logical pages from LPN.
type Op struct {
	Trim   bool
	LPN    uint32
	Pages  uint32
	Stream uint8 // placement id from the rule table (0 = no hint)
	Class  uint8 // index into Generator.Classes()
}

// Generator produces host traffic for a drive of a fixed logical size.
type Generator interface {
	Name() string
	// Classes names the traffic classes (files) that Op.Class indexes.
	Classes() []string
	// Prefill is the traffic that brings an empty drive to the starting fill.
	Prefill() []Op
	// Next is the next host command in steady state.
	Next() Op
}

// Spec selects and parameterises a generator (the `workload:` section of
// the simulator's configuration). Zero values take the defaults.
type Spec struct {
	Name string `yaml:"name" json:"name"` // uniform, hotcold, sequential, mysql

	FillStart float64 `yaml:"fill_start" json:"fill_start"` // fraction of logical space live at start (default 0.65)
	FillMax   float64 `yaml:"fill_max" json:"fill_max"`     // the mix grows its data toward this fill (default 0.9)

	HotAccess float64 `yaml:"hot_access" json:"hot_access"` // share of data writes to the hot set (default 0.8)
	HotSpace  float64 `yaml:"hot_space" json:"hot_space"`   // hot set as a share of the data (default 0.2)

	IOPages uint32 `yaml:"io_pages" json:"io_pages"` // pages per synthetic write command (default 1)

	Mix MySQLMix `yaml:"mysql" json:"mysql"`
}

// MySQLMix parameterises the MySQL-like generator. Weights are shares of
// host bytes; sizes are fractions of the logical capacity.
type MySQLMix struct {
	Data        float64 `yaml:"data" json:"data"`               // tablespace page writes (default 0.30)
	Doublewrite float64 `yaml:"doublewrite" json:"doublewrite"` // default 0.30: every flushed page goes through it
	Redo        float64 `yaml:"redo" json:"redo"`               // default 0.20
	Binlog      float64 `yaml:"binlog" json:"binlog"`           // default 0.15
	Undo        float64 `yaml:"undo" json:"undo"`               // default 0.05

	RedoSpace        float64 `yaml:"redo_space" json:"redo_space"`               // default 0.02
	DoublewriteSpace float64 `yaml:"doublewrite_space" json:"doublewrite_space"` // default 0.002
	UndoSpace        float64 `yaml:"undo_space" json:"undo_space"`               // default 0.01
	BinlogFileSpace  float64 `yaml:"binlog_file_space" json:"binlog_file_space"` // one binlog file (default 0.002)
	// BinlogRetainSpace is how much binlog lives before expiry deletes
	// (TRIMs) the oldest file: binlog_expire_logs_seconds x binlog byte rate
	// / capacity. The simulator computes it from its rate; default 0.05.
	BinlogRetainSpace float64 `yaml:"binlog_retain_space" json:"binlog_retain_space"`
	// Growth is the share of data writes that extend the tablespaces with
	// new pages until FillMax is reached (default 0.02).
	Growth float64 `yaml:"growth" json:"growth"`
}

// Names lists the generators New knows.
func Names() []string { return []string{"uniform", "hotcold", "sequential", "mysql"} }

// WithDefaults fills zero fields.
func (s Spec) WithDefaults() Spec {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	if s.Name == "" {
		s.Name = "mysql"
	}
	def(&s.FillStart, 0.65)
	def(&s.FillMax, 0.9)
	def(&s.HotAccess, 0.8)
	def(&s.HotSpace, 0.2)
	if s.IOPages == 0 {
		s.IOPages = 1
	}
	m := &s.Mix
	if m.Data+m.Doublewrite+m.Redo+m.Binlog+m.Undo == 0 {
		m.Data, m.Doublewrite, m.Redo, m.Binlog, m.Undo = 0.30, 0.30, 0.20, 0.15, 0.05
	}
	def(&m.RedoSpace, 0.02)
	def(&m.DoublewriteSpace, 0.002)
	def(&m.UndoSpace, 0.01)
	def(&m.BinlogFileSpace, 0.002)
	def(&m.BinlogRetainSpace, 0.05)
	def(&m.Growth, 0.02)
	return s
}

// Validate checks a spec (after WithDefaults) and says what is wrong.
func (s Spec) Validate() error {
	frac := func(name string, v float64, lo, hi float64) error {
		if math.IsNaN(v) || v < lo || v > hi {
			return fmt.Errorf("simload: %s %v out of range [%v, %v]", name, v, lo, hi)
		}
		return nil
	}
	known := false
	for _, n := range Names() {
		known = known || n == s.Name
	}
	if !known {
		return fmt.Errorf("simload: unknown workload %q (want one of %v)", s.Name, Names())
	}
	m := s.Mix
	for _, c := range []struct {
		name      string
		v, lo, hi float64
	}{
		{"fill_start", s.FillStart, 0.01, 1},
		{"fill_max", s.FillMax, 0.01, 1},
		{"hot_access", s.HotAccess, 0, 1},
		{"hot_space", s.HotSpace, 0.001, 0.999},
		{"mysql.data", m.Data, 0, 1},
		{"mysql.doublewrite", m.Doublewrite, 0, 1},
		{"mysql.redo", m.Redo, 0, 1},
		{"mysql.binlog", m.Binlog, 0, 1},
		{"mysql.undo", m.Undo, 0, 1},
		{"mysql.redo_space", m.RedoSpace, 0, 0.5},
		{"mysql.doublewrite_space", m.DoublewriteSpace, 0, 0.5},
		{"mysql.undo_space", m.UndoSpace, 0, 0.5},
		{"mysql.binlog_file_space", m.BinlogFileSpace, 0, 0.5},
		{"mysql.binlog_retain_space", m.BinlogRetainSpace, 0, 0.9},
		{"mysql.growth", m.Growth, 0, 1},
	} {
		if err := frac(c.name, c.v, c.lo, c.hi); err != nil {
			return err
		}
	}
	if s.FillMax < s.FillStart {
		return fmt.Errorf("simload: fill_max %v below fill_start %v", s.FillMax, s.FillStart)
	}
	if s.IOPages == 0 || s.IOPages > 1024 {
		return fmt.Errorf("simload: io_pages %d out of range [1, 1024]", s.IOPages)
	}
	if s.Name == "mysql" && m.Data+m.Doublewrite+m.Redo+m.Binlog+m.Undo <= 0 {
		return fmt.Errorf("simload: mysql mix weights sum to zero")
	}
	return nil
}

// New builds the generator a spec names for a drive of logicalPages pages.
func New(spec Spec, logicalPages uint32, table *rules.Table, seed uint64) (Generator, error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if logicalPages < 1024 {
		return nil, fmt.Errorf("simload: %d logical pages is too small a drive (want >= 1024)", logicalPages)
	}
	if pagesOf(spec.FillStart, logicalPages) < 4*spec.IOPages {
		return nil, fmt.Errorf("simload: fill_start %v of %d pages holds fewer than 4 commands of %d pages", spec.FillStart, logicalPages, spec.IOPages)
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	switch spec.Name {
	case "uniform":
		return newSynthetic(spec, logicalPages, table, rng, synthUniform), nil
	case "hotcold":
		return newSynthetic(spec, logicalPages, table, rng, synthHotCold), nil
	case "sequential":
		return newSynthetic(spec, logicalPages, table, rng, synthSequential), nil
	}
	return newMySQL(spec, logicalPages, table, rng)
}

func pagesOf(frac float64, total uint32) uint32 { return uint32(frac * float64(total)) }
