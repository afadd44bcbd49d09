package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/simload/rules"
)

func TestParseByteSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want ByteSize
		err  string
	}{
		{"4096", 4096, ""},
		{"4KiB", 4096, ""},
		{"256MiB", 256 << 20, ""},
		{"1TiB", 1 << 40, ""},
		{"1.5GiB", 3 << 29, ""},
		{"200MB", 200e6, ""},
		{"200 mb", 200e6, ""},
		{"18446744073709551615", 1<<64 - 1, ""},
		{"", 0, "no number"},
		{"MiB", 0, "no number"},
		{"12XB", 0, "unknown unit"},
		{"1.2.3", 0, "1.2.3"},
		{"99999999PiB", 0, "overflows"},
	} {
		got, err := ParseByteSize(tc.in)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
	require.Equal(t, "256MiB", ByteSize(256<<20).String())
	require.Equal(t, "1000B", ByteSize(1000).String())
}

func FuzzParseByteSize(f *testing.F) {
	for _, s := range []string{"4KiB", "1.5GiB", "200MB", "0", "1e3", ".", "999999999999999999999TiB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ParseByteSize(s)
	})
}

const exampleYAML = `
sim:
  name: nvmesim0
  capacity: 1TiB
  spare_factor: 0.07
  page_size: 4KiB
  block_pages: 256
  gc_policy: greedy
  workload:
    name: mysql
    fill_start: 0.65
    fill_max: 0.9
    hot_access: 0.8
    hot_space: 0.2
    mysql:
      data: 0.3
      doublewrite: 0.3
      redo: 0.2
      binlog: 0.15
      undo: 0.05
  placement:
    streams: true
    rules:
      - {match: 'ib_logfile.*|#ib_redo.*', stream: 1}
      - {match: 'binlog\..*', stream: 2}
      - {match: '.*\.ibd', stream: 3}
  rate: 200MB
  speed_up: 60
  seed: 7
  binlog_expire_seconds: 1800
  tick: 1s
`

func TestConfigFromYAML(t *testing.T) {
	f, err := config.Parse([]byte(exampleYAML))
	require.NoError(t, err)
	var c Config
	require.NoError(t, f.Decode(Section, &c))
	c = c.WithDefaults()
	require.NoError(t, c.Validate())
	require.Equal(t, ByteSize(1<<40), c.Capacity)
	require.Equal(t, uint64(128), c.Scale, "1 TiB at 4 KiB is 256 Mi pages: scale 128 gives 2 Mi")
	require.Equal(t, ByteSize(200e6), c.Rate)
	require.Equal(t, time.Second, *c.Tick)
	require.Len(t, c.Placement.Rules, 3)
	// 1800 s x 200 MB/s x 15% binlog share over 1 TiB.
	require.InDelta(t, 1800*200e6*0.15/(1<<40), c.Workload.Mix.BinlogRetainSpace, 1e-9)
	// 25% of 1 TiB in 12 hours at 200 MB/s, 30% of it data writes.
	require.InDelta(t, 0.25*(1<<40)/(12*3600*200e6*0.3), c.Workload.Mix.Growth, 1e-9)

	bad, err := config.Parse([]byte("sim:\n  capacity: 1TiB\n  spare: 0.1\n"))
	require.NoError(t, err)
	require.ErrorContains(t, bad.Decode(Section, &c), "spare", "unknown keys are errors")
	bad, err = config.Parse([]byte("sim:\n  capacity: lots\n"))
	require.NoError(t, err)
	require.ErrorContains(t, bad.Decode(Section, &c), "no number")
}

func TestConfigValidate(t *testing.T) {
	rulesFile := filepath.Join(t.TempDir(), "rules.txt")
	require.NoError(t, os.WriteFile(rulesFile, []byte("1 #ib_redo.*\n"), 0o644))
	neg := -time.Second
	tests := []struct {
		name   string
		mutate func(*Config)
		err    string
	}{
		{"defaults", func(*Config) {}, ""},
		{"odd page size", func(c *Config) { c.PageSize = 3000 }, "power of two"},
		{"speed-up", func(c *Config) { c.SpeedUp = -1 }, "speed_up"},
		{"tiny drive", func(c *Config) { c.Capacity = 1 << 20; c.Scale = 1 }, "at least 4096"},
		{"over-scaled", func(c *Config) { c.Scale = 1 << 30 }, "at least 4096"},
		{"model too big", func(c *Config) { c.Capacity = 4 << 40; c.Scale = 1 }, "page limit"},
		{"policy", func(c *Config) { c.GCPolicy = "lru" }, "unknown gc policy"},
		{"workload", func(c *Config) { c.Workload.Name = "tpcc" }, "unknown workload"},
		{"spare", func(c *Config) { c.SpareFactor = 0.0005 }, "raise the spare factor"},
		{"both rule forms", func(c *Config) {
			c.Placement.RulesFile = rulesFile
			c.Placement.Rules = []rules.Rule{{Match: "x", Stream: 1}}
		}, "not both"},
		{"diskstats device", func(c *Config) { c.Diskstats.Device = "a/b" }, "invalid device"},
		{"negative tick", func(c *Config) { c.Tick = &neg }, "tick"},
		{"expire", func(c *Config) { c.BinlogExpireSeconds = -5 }, "binlog_expire_seconds"},
		{"fill hours", func(c *Config) { c.FillHours = -1 }, "fill_hours"},
		{"serial too long", func(c *Config) { c.Serial = strings.Repeat("S", 21) }, "serial"},
		{"firmware too long", func(c *Config) { c.Firmware = "FW-123456" }, "firmware"},
		{"name with space", func(c *Config) { c.Name = "nvme sim" }, "name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Config{}.WithDefaults()
			tc.mutate(&c)
			err := c.Validate()
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.err)
		})
	}
	// A rule file is read at New.
	c := smallConfig()
	c.Placement.RulesFile = rulesFile
	d, err := New(c, WithClock(newClock().Now))
	require.NoError(t, err)
	require.Equal(t, 1, d.Stats().OpenStreams)
	c.Placement.RulesFile = filepath.Join(t.TempDir(), "missing")
	_, err = New(c)
	require.ErrorContains(t, err, "placement rules")
	require.ErrorContains(t, c.WithDefaults().Validate(), "placement rules")
}

func TestLoadConfig(t *testing.T) {
	c, err := LoadConfig(nil)
	require.NoError(t, err)
	require.Equal(t, "nvmesim0", c.Name)
	require.Equal(t, ByteSize(1<<40), c.Capacity)

	f, err := config.Parse([]byte(exampleYAML))
	require.NoError(t, err)
	c, err = LoadConfig(f)
	require.NoError(t, err)
	require.Equal(t, 60.0, c.SpeedUp)

	f, err = config.Parse([]byte("sim:\n  spare_factor: 2\n"))
	require.NoError(t, err)
	_, err = LoadConfig(f)
	require.ErrorContains(t, err, "spare factor")
	f, err = config.Parse([]byte("sim:\n  bogus: 1\n"))
	require.NoError(t, err)
	_, err = LoadConfig(f)
	require.ErrorContains(t, err, "bogus")
}

// FuzzLoadConfig feeds arbitrary YAML through the sim: section decoder,
// defaults and validation; bad input must be an error, never a panic.
func FuzzLoadConfig(f *testing.F) {
	f.Add(exampleYAML)
	f.Add("sim:\n  capacity: 1TiB\n  scale: 1\n")
	f.Add("sim:\n  tick: -1s\n  spare_factor: .nan\n")
	f.Add("sim: [1, 2]\n")
	f.Fuzz(func(t *testing.T, text string) {
		file, err := config.Parse([]byte(text))
		if err != nil {
			return
		}
		_, _ = LoadConfig(file)
		var c Config
		_ = c.Validate() // zero config without defaults: an error, not a panic
	})
}

// TestFSDiscard: freed pages reach the drive as TRIM unless the fs
// section says discard: false (a mount without -o discard).
func TestFSDiscard(t *testing.T) {
	for yml, want := range map[string]bool{
		"sim:\n  fs:\n    mountpoint: /m\n    backing: /b\n":                     true,
		"sim:\n  fs:\n    mountpoint: /m\n    backing: /b\n    discard: true\n":  true,
		"sim:\n  fs:\n    mountpoint: /m\n    backing: /b\n    discard: false\n": false,
	} {
		f, err := config.Parse([]byte(yml))
		require.NoError(t, err)
		var c Config
		require.NoError(t, f.Decode(Section, &c))
		require.Equal(t, want, c.FS.Discards(), yml)
		require.False(t, c.FS.AllowOther, "only the exporter's user reaches the mount unless the file says otherwise")
	}
	f, err := config.Parse([]byte("sim:\n  fs:\n    mountpoint: /m\n    backing: /b\n    allow_other: true\n"))
	require.NoError(t, err)
	var c Config
	require.NoError(t, f.Decode(Section, &c))
	require.True(t, c.FS.AllowOther)
}

// TestFSDevice: the device section names a block device and a policy
// that compiles; a class the filesystem does not know is refused.
func TestFSDevice(t *testing.T) {
	const fs = "sim:\n  fs:\n    mountpoint: /m\n    backing: /b\n    device:\n"
	for yml, want := range map[string]string{
		fs + "      path: /dev/nvme0n1\n      placement:\n        default: 0\n        classes: {redo: 1, data: 2}\n": "",
		fs + "      path: nvme0n1\n": `path "nvme0n1": want the namespace's block device`,
		fs + "      path: /dev/nvme0n1\n      placement:\n        classes: {log: 1}\n": `class "log": want one of redo`,
	} {
		f, err := config.Parse([]byte(yml))
		require.NoError(t, err)
		c, err := LoadConfig(f)
		if want == "" {
			require.NoError(t, err, yml)
			require.Equal(t, uint16(2), c.FS.Device.Placement.Classes["data"])
			continue
		}
		require.ErrorContains(t, err, want, yml)
	}
}
