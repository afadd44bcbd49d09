package sim

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/ftl"
	"github.com/walab/walab/internal/simfs/device"
	"github.com/walab/walab/internal/simload"
	"github.com/walab/walab/internal/simload/hostrate"
	"github.com/walab/walab/internal/simload/rules"
)

// Section is the exporter configuration section the simulator reads.
const Section = "sim"

// Config is the `sim:` section of the exporter's YAML file.
type Config struct {
	Name     string `yaml:"name"`     // controller name, the `device` label (default "nvmesim0")
	Serial   string `yaml:"serial"`   // default derived from the seed
	Firmware string `yaml:"firmware"` // default "SIM00001"
	// StateFile keeps the drive's lifetime counters (bytes written, power-on
	// time) across restarts, as a real drive keeps them across a power cycle
	// or a format; "" keeps nothing. The FTL itself restarts empty.
	StateFile string `yaml:"state_file"`

	Capacity ByteSize `yaml:"capacity"` // advertised user capacity (default 1TiB)
	// Scale divides the capacity and the write rate for the model; reported
	// counters are multiplied back. WA depends on utilisation, spare factor
	// and traffic pattern, not on absolute size. 0 picks the smallest power
	// of two that keeps the model at or under 2 Mi pages.
	Scale       uint64   `yaml:"scale"`
	SpareFactor float64  `yaml:"spare_factor"` // (physical-logical)/physical (default 0.07)
	PageSize    ByteSize `yaml:"page_size"`    // mapping unit and LBA size (default 4KiB)
	BlockPages  uint32   `yaml:"block_pages"`  // pages per erase block (default 256)
	GCPolicy    string   `yaml:"gc_policy"`    // greedy (default) or cost_benefit
	PECycles    uint32   `yaml:"pe_cycles"`    // rated erase cycles, for Percentage Used (default 3000)

	// FDP also emulates Flexible Data Placement (CTRATT bit 19, Get
	// Features 0x1D, logs 0x20-0x23); a probe then prefers the FDP
	// statistics log over OCP 0xC0 (same counters).
	FDP bool `yaml:"fdp"`

	Workload  simload.Spec `yaml:"workload"`
	Placement Placement    `yaml:"placement"`

	Rate    ByteSize `yaml:"rate"`     // host bytes per simulated second at full scale (default 200MB)
	SpeedUp float64  `yaml:"speed_up"` // simulated seconds per real second (default 1)
	Seed    uint64   `yaml:"seed"`     // workload seed (default 1)
	// BinlogExpireSeconds sets how long binlogs live before their deletion
	// is a TRIM (binlog_expire_logs_seconds; seed 000 uses 1800).
	BinlogExpireSeconds float64 `yaml:"binlog_expire_seconds"`
	// FillHours is how many simulated hours the MySQL mix takes to grow its
	// tablespaces from fill_start to fill_max at `rate` (seed 000: 60-70% to
	// above 90% in a 720-minute run; default 12). It sets workload.mysql.growth
	// unless that is given.
	FillHours float64 `yaml:"fill_hours"`

	Diskstats Diskstats `yaml:"diskstats"`

	// FS drives the model with the writes of a FUSE filesystem instead of
	// a generator (internal/simfs): a database's datadir on the mountpoint
	// becomes the drive's host writes, at their real sizes and places.
	FS FS `yaml:"fs"`

	// Tick is how often a background goroutine advances the simulation
	// (default 1s; "0s" advances only when the drive is read).
	Tick *time.Duration `yaml:"tick"`
}

// Placement is the stream (placement) setup of the simulated drive.
type Placement struct {
	Streams   bool         `yaml:"streams"`    // start with placement on
	Rules     []rules.Rule `yaml:"rules"`      // file regex -> stream; default rules.Default
	RulesFile string       `yaml:"rules_file"` // or a text rule file ("<stream> <regex>" lines)
}

// Diskstats makes a real block device set the host write rate instead of Rate.
type Diskstats struct {
	Device string `yaml:"device"` // e.g. nvme0n1; empty = use rate
	ProcFS string `yaml:"procfs"` // default /proc
}

// FS is the filesystem the drive sits under. With a mountpoint the drive
// has no generator: scale is 1 (real bytes at real places), capacity
// defaults to 1 GiB, and workload, rate, speed_up and diskstats are unused.
type FS struct {
	Mountpoint string `yaml:"mountpoint"` // where the exporter mounts it (absolute path)
	Backing    string `yaml:"backing"`    // the directory that holds the files (absolute path)
	// Discard (default true) sends the pages a file frees (unlink,
	// truncate, punch-hole) to the drive as TRIM; false keeps them valid
	// on the drive until the filesystem reuses them, as a filesystem
	// mounted without the discard option (XFS's and ext4's default).
	Discard *bool `yaml:"discard"`
	// AllowOther (default false) lets users other than the exporter's
	// reach the mount, for a mysqld that runs as its own user; the kernel
	// then checks every access against the files' modes and owners.
	AllowOther bool `yaml:"allow_other"`
	// Device (optional) also sends every write and free to an NVMe
	// namespace, with the placement handle its policy gives the file
	// (internal/simfs/device, docs/placement-files.md); the drive model
	// is fed as without it.
	Device *device.Config `yaml:"device"`
}

// Discards reports whether freed pages reach the drive as TRIM.
func (f FS) Discards() bool { return f.Discard == nil || *f.Discard }

// Enabled reports whether the drive is fed by the filesystem.
func (f FS) Enabled() bool { return f.Mountpoint != "" }

func (f FS) validate() error {
	switch {
	case !filepath.IsAbs(f.Mountpoint) || !filepath.IsAbs(f.Backing):
		return fmt.Errorf("sim: fs: mountpoint %q and backing %q must both be absolute paths", f.Mountpoint, f.Backing)
	case within(f.Backing, f.Mountpoint) || within(f.Mountpoint, f.Backing):
		return fmt.Errorf("sim: fs: mountpoint %q and backing %q must not contain each other", f.Mountpoint, f.Backing)
	case f.Device == nil:
		return nil
	case !strings.HasPrefix(f.Device.Path, "/dev/"):
		return fmt.Errorf("sim: fs: device: path %q: want the namespace's block device, /dev/nvme...", f.Device.Path)
	}
	if _, err := f.Device.Placement.Compile(); err != nil {
		return fmt.Errorf("sim: fs: device: %w", err)
	}
	return nil
}

func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// fsCapacity is the default capacity of a drive under the filesystem.
const fsCapacity = 1 << 30

// maxPages bounds any model: 256 Mi pages (1 TiB at 4 KiB) is about 2 GiB.
const maxPages = 1 << 28

// maxModelPages bounds the automatic scale: 2 Mi pages is ~17 MiB of model
// and a few hundred milliseconds of CPU per drive turn.
const maxModelPages = 1 << 21

// WithDefaults fills zero fields.
func (c Config) WithDefaults() Config {
	c.Name = cmp.Or(c.Name, "nvmesim0")
	c.Seed = cmp.Or(c.Seed, 1)
	c.Serial = cmp.Or(c.Serial, fmt.Sprintf("WALABSIM%08X", uint32(c.Seed*0x9E3779B1+1)))
	c.Firmware = cmp.Or(c.Firmware, "SIM00001")
	if c.Capacity == 0 && c.FS.Enabled() {
		c.Capacity = fsCapacity
	}
	c.Capacity = cmp.Or(c.Capacity, 1<<40)
	if c.Scale == 0 && c.FS.Enabled() {
		c.Scale = 1
	}
	c.SpareFactor = cmp.Or(c.SpareFactor, 0.07)
	c.PageSize = cmp.Or(c.PageSize, 4096)
	c.BlockPages = cmp.Or(c.BlockPages, 256)
	c.GCPolicy = cmp.Or(c.GCPolicy, "greedy")
	c.PECycles = cmp.Or(c.PECycles, 3000)
	c.Rate = cmp.Or(c.Rate, 200e6)
	c.SpeedUp = cmp.Or(c.SpeedUp, 1)
	c.BinlogExpireSeconds = cmp.Or(c.BinlogExpireSeconds, 1800)
	c.FillHours = cmp.Or(c.FillHours, 12)
	if c.Tick == nil {
		d := time.Second
		c.Tick = &d
	}
	c.defaultScale()
	c.defaultBinlogRetain()
	c.defaultGrowth()
	c.Workload = c.Workload.WithDefaults()
	return c
}

// defaultScale picks the model's scale, when unset, so that the model
// has at most maxModelPages pages: a power of two.
func (c *Config) defaultScale() {
	if c.Scale == 0 && c.PageSize > 0 {
		pages := uint64(c.Capacity) / uint64(c.PageSize)
		c.Scale = 1
		if pages > maxModelPages {
			c.Scale = 1 << bits.Len64((pages-1)/maxModelPages)
		}
	}
}

// defaultBinlogRetain sets the binlogs' retained share of capacity, when
// unset: binlogs live binlog_expire_logs_seconds, and at the binlog's share
// of the host rate that is the retained volume, as a share of capacity.
func (c *Config) defaultBinlogRetain() {
	if w := c.Workload; w.Mix.BinlogRetainSpace == 0 && c.Capacity > 0 {
		m := w.WithDefaults().Mix
		share := m.Binlog / (m.Data + m.Doublewrite + m.Redo + m.Binlog + m.Undo)
		retain := c.BinlogExpireSeconds * float64(c.Rate) * share / float64(c.Capacity)
		if !math.IsNaN(retain) {
			c.Workload.Mix.BinlogRetainSpace = min(max(retain, 0.001), 0.3)
		}
	}
}

// defaultGrowth sets the appended data pages per data byte written, when
// unset, so that the growth from fill_start to fill_max takes FillHours at
// Rate.
func (c *Config) defaultGrowth() {
	if w := c.Workload; w.Mix.Growth == 0 && c.FillHours > 0 && c.Rate > 0 {
		wd := w.WithDefaults()
		m := wd.Mix
		share := m.Data / (m.Data + m.Doublewrite + m.Redo + m.Binlog + m.Undo)
		g := (wd.FillMax - wd.FillStart) * float64(c.Capacity) / (c.FillHours * 3600 * float64(c.Rate) * share)
		if !math.IsNaN(g) && !math.IsInf(g, 0) {
			c.Workload.Mix.Growth = min(max(g, 1e-6), 1)
		}
	}
}

// Validate checks a configuration and says what is wrong. Call it on
// WithDefaults' result: zero values that mean "default" are errors here.
func (c Config) Validate() error {
	for _, f := range []struct {
		key, v string
		max    int
	}{{"name", c.Name, 64}, {"serial", c.Serial, 20}, {"firmware", c.Firmware, 8}} {
		if f.v == "" || len(f.v) > f.max || strings.IndexFunc(f.v, func(r rune) bool { return r <= ' ' || r > '~' }) >= 0 {
			return fmt.Errorf("sim: %s %q must be 1-%d printable ASCII characters without spaces", f.key, f.v, f.max)
		}
	}
	if c.PageSize < 512 || c.PageSize > 1<<20 || c.PageSize&(c.PageSize-1) != 0 {
		return fmt.Errorf("sim: page_size %d must be a power of two between 512 and 1MiB", uint64(c.PageSize))
	}
	if c.Scale == 0 {
		return errors.New("sim: scale must be positive")
	}
	if math.IsNaN(c.SpeedUp) || c.SpeedUp <= 0 || c.SpeedUp > 1e6 {
		return fmt.Errorf("sim: speed_up %v out of range (0, 1e6]", c.SpeedUp)
	}
	if math.IsNaN(c.BinlogExpireSeconds) || c.BinlogExpireSeconds < 0 {
		return fmt.Errorf("sim: binlog_expire_seconds %v must not be negative", c.BinlogExpireSeconds)
	}
	if math.IsNaN(c.FillHours) || c.FillHours < 0 {
		return fmt.Errorf("sim: fill_hours %v must not be negative", c.FillHours)
	}
	if c.Tick != nil && *c.Tick < 0 {
		return fmt.Errorf("sim: tick %v must not be negative", *c.Tick)
	}
	if len(c.Placement.Rules) > 0 && c.Placement.RulesFile != "" {
		return errors.New("sim: placement: give rules or rules_file, not both")
	}
	if c.Diskstats.Device != "" {
		if _, err := hostrate.NewDiskstats(c.Diskstats.ProcFS, c.Diskstats.Device); err != nil {
			return fmt.Errorf("sim: %w", err)
		}
	}
	if _, err := ftl.ParsePolicy(c.GCPolicy); err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	if c.FS.Enabled() {
		if err := c.FS.validate(); err != nil {
			return err
		}
		if c.Scale != 1 || c.Diskstats.Device != "" {
			return errors.New("sim: fs: a drive under the filesystem takes its writes at full size: scale must be 1 and diskstats unset")
		}
	} else if c.FS.Backing != "" {
		return errors.New("sim: fs: backing without a mountpoint")
	}
	if err := c.Workload.Validate(); err != nil {
		return fmt.Errorf("sim: workload: %w", err)
	}
	table, err := c.rules()
	if err != nil {
		return err
	}
	if _, err := c.modelConfig(int(table.MaxID()) + 1); err != nil {
		return err
	}
	return nil
}

// rules compiles the rule table the configuration names.
func (c Config) rules() (*rules.Table, error) {
	if c.Placement.RulesFile != "" {
		b, err := os.ReadFile(c.Placement.RulesFile)
		if err != nil {
			return nil, fmt.Errorf("sim: placement rules: %w", err)
		}
		return rules.Parse(string(b))
	}
	if len(c.Placement.Rules) > 0 {
		return rules.Compile(c.Placement.Rules)
	}
	return rules.Compile(rules.Default())
}

// modelConfig sizes the scaled-down FTL.
func (c Config) modelConfig(streams int) (ftl.Config, error) {
	pages := uint64(c.Capacity) / uint64(c.PageSize) / c.Scale
	if pages < 4096 {
		return ftl.Config{}, fmt.Errorf("sim: capacity %s / scale %d is %d pages of %s; the model needs at least 4096", c.Capacity, c.Scale, pages, c.PageSize)
	}
	if pages > maxPages {
		return ftl.Config{}, fmt.Errorf("sim: capacity %s / scale %d is %d pages, above the %d-page limit (about 2 GiB of model); raise scale", c.Capacity, c.Scale, pages, maxPages)
	}
	pol, err := ftl.ParsePolicy(c.GCPolicy)
	if err != nil {
		return ftl.Config{}, err
	}
	mc := ftl.Config{LogicalPages: uint32(pages), BlockPages: c.BlockPages, PageSize: uint32(c.PageSize), SpareFactor: c.SpareFactor, Streams: streams, Policy: pol}
	if err := mc.Validate(); err != nil {
		return ftl.Config{}, fmt.Errorf("sim: %w", err)
	}
	return mc, nil
}

// LoadConfig decodes the `sim:` section of the exporter's configuration
// (absent: all defaults) and validates it, with defaults applied.
func LoadConfig(f *config.File) (Config, error) {
	var c Config
	if f != nil {
		if err := f.Decode(Section, &c); err != nil {
			return Config{}, err
		}
	}
	c = c.WithDefaults()
	return c, c.Validate()
}
