// Package alerts generates walab's Prometheus recording rules and alerts
// from one small config, so every threshold is set once and the rule file,
// the Kubernetes PrometheusRule and the e2e test's shortened rules all come
// from the same source.
package alerts

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"time"

	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"
)

// Config holds every tunable of the rules. Durations are Prometheus
// durations ("1h", "15m"); an empty optional field disables its rule.
type Config struct {
	// WAWindow is the range of the "hourly" WA rules. 1h in production;
	// the e2e test shortens it (the rule names keep "1h": dashboards and
	// alerts must not change with it).
	WAWindow string `yaml:"wa_window"`
	// WALongWindow is the range of the long WA rule (24h).
	WALongWindow string `yaml:"wa_long_window"`
	// RateWindow is the range of the rate() rules behind the write chain.
	RateWindow string `yaml:"rate_window"`

	// ReferenceWA is the WA a device should not exceed, per device name;
	// "*" is the default for devices not listed. Set it from a baseline run
	// (walab compare prints it).
	ReferenceWA map[string]float64 `yaml:"reference_wa"`
	// RegressionMargin: alert when WA > reference x (1 + margin).
	RegressionMargin float64 `yaml:"regression_margin"`
	// RegressionFor is how long the regression must last.
	RegressionFor string `yaml:"regression_for"`
	// BaselineOffset, when set, also compares each hour's WA with the WA
	// the same time earlier (a baseline run started exactly that long
	// before the candidate); empty disables the rule and its alert.
	BaselineOffset string `yaml:"baseline_offset"`
	// WAChangeOffset is how far back the fleet rules' WA change looks:
	// each drive's hourly WA now minus its own hourly WA this long ago
	// (walab-fleet.rules, the fleet dashboard's top drives by WA change).
	WAChangeOffset string `yaml:"wa_change_offset"`

	// WARiseLimit: alert when hourly WA grew by more than this over WARiseWindow.
	WARiseLimit  float64 `yaml:"wa_rise_limit"`
	WARiseWindow string  `yaml:"wa_rise_window"`

	// NANDWithoutHostWindow: NAND bytes grew but host bytes did not, over this range.
	NANDWithoutHostWindow string `yaml:"nand_without_host_window"`

	// PlacementScenarios is a regex over walab_loadgen_run_info{scenario}:
	// while such a run is on, streams/FDP and the placement daemon are expected.
	PlacementScenarios string `yaml:"placement_scenarios"`
	// PlacementFor is how long placement may be missing during such a run.
	PlacementFor string `yaml:"placement_for"`
	// PlacementObservedMin is the least share of a device's write bytes
	// that must carry a placement id (streams or FDP, counted per command
	// by the placement tracer) during a placement run.
	PlacementObservedMin float64 `yaml:"placement_observed_min"`

	IRQBusiestShareMax float64 `yaml:"irq_busiest_share_max"`
	IRQFor             string  `yaml:"irq_for"`
	// SoftirqBusiestMax is the share of one core's time in softirq above
	// which WalabSoftirqConcentrated fires (seed 003 found 99.71%).
	SoftirqBusiestMax float64 `yaml:"softirq_busiest_max"`

	FilesystemUsedMax float64 `yaml:"filesystem_used_max"`
	// FilesystemUsedMaxInRun applies while a loadgen run is on: seed 000's
	// procedure fills the drive to 60-70% before a run and wants it above
	// 90% at the end, so the idle-time threshold would fire on every
	// conforming run. Only a nearly full filesystem alerts then.
	FilesystemUsedMaxInRun float64 `yaml:"filesystem_used_max_in_run"`
	CheckpointAgeMax       float64 `yaml:"checkpoint_age_max"`
	LoadgenErrorRatioMax   float64 `yaml:"loadgen_error_ratio_max"`
	TargetJobs             string  `yaml:"target_jobs"`
	TargetDownFor          string  `yaml:"target_down_for"`
	RunbookURL             string  `yaml:"runbook_url"`
	NewOrderType           string  `yaml:"new_order_type"`
	// BlockDevices selects the walab_blockdev_* devices summed as the block
	// layer of the write chain (a regexp on the device label).
	BlockDevices string `yaml:"block_devices"`
	DefaultFor   string `yaml:"default_for"`
}

// Default is the production configuration (alerts/config.yml spells it out).
func Default() Config {
	return Config{
		WAWindow:               "1h",
		WALongWindow:           "24h",
		RateWindow:             "5m",
		ReferenceWA:            map[string]float64{"*": 3},
		RegressionMargin:       0.1,
		RegressionFor:          "2h",
		WAChangeOffset:         "24h",
		WARiseLimit:            0.5,
		WARiseWindow:           "3h",
		NANDWithoutHostWindow:  "30m",
		PlacementScenarios:     "streams.*|fdp.*|astream.*",
		PlacementFor:           "5m",
		PlacementObservedMin:   0.5,
		IRQBusiestShareMax:     0.9,
		IRQFor:                 "15m",
		SoftirqBusiestMax:      0.5,
		FilesystemUsedMax:      0.85,
		FilesystemUsedMaxInRun: 0.97,
		CheckpointAgeMax:       0.75,
		LoadgenErrorRatioMax:   0.05,
		TargetJobs:             "walab-exporter|walab-loadgen",
		TargetDownFor:          "2m",
		RunbookURL:             "https://github.com/walab/walab/blob/main/docs/lab.md",
		NewOrderType:           "new_order",
		BlockDevices:           `nvme\d+n\d+`,
		DefaultFor:             "10m",
	}
}

// LoadConfig reads a YAML config over the defaults; unknown keys are errors
// so that a misspelt threshold is not silently ignored.
func LoadConfig(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, err
	}
	return ParseConfig(b)
}

// ParseConfig parses YAML over Default and validates the result.
func ParseConfig(b []byte) (Config, error) { return ParseOver(Default(), b) }

// Override reads a YAML file over base (tests and the e2e shorten windows this way).
func Override(base Config, path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, err
	}
	return ParseOver(base, b)
}

// ParseOver parses YAML over base; keys not given keep base's values, and a
// given reference_wa replaces base's map as a whole.
func ParseOver(base Config, b []byte) (Config, error) {
	c := base
	c.ReferenceWA = nil
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && err != io.EOF {
		return Config{}, fmt.Errorf("alerts config: %w", err)
	}
	if c.ReferenceWA == nil {
		c.ReferenceWA = base.ReferenceWA
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// Validate checks durations, regexes and ranges.
func (c Config) Validate() error {
	durs := map[string]string{
		"wa_window": c.WAWindow, "wa_long_window": c.WALongWindow, "rate_window": c.RateWindow,
		"regression_for": c.RegressionFor, "wa_rise_window": c.WARiseWindow, "wa_change_offset": c.WAChangeOffset,
		"nand_without_host_window": c.NANDWithoutHostWindow, "irq_for": c.IRQFor,
		"target_down_for": c.TargetDownFor, "default_for": c.DefaultFor, "placement_for": c.PlacementFor,
	}
	if c.BaselineOffset != "" {
		durs["baseline_offset"] = c.BaselineOffset
	}
	for _, k := range sortedKeys(durs) {
		if _, err := model.ParseDuration(durs[k]); err != nil {
			return fmt.Errorf("alerts config: %s: %q is not a Prometheus duration: %w", k, durs[k], err)
		}
	}
	for k, v := range map[string]string{"placement_scenarios": c.PlacementScenarios, "target_jobs": c.TargetJobs, "block_devices": c.BlockDevices} {
		if _, err := regexp.Compile(v); err != nil {
			return fmt.Errorf("alerts config: %s: %w", k, err)
		}
	}
	if _, ok := c.ReferenceWA["*"]; !ok {
		return fmt.Errorf("alerts config: reference_wa needs a \"*\" default")
	}
	for d, v := range c.ReferenceWA {
		if !(v >= 1) {
			return fmt.Errorf("alerts config: reference_wa[%s] = %v; WA is never below 1", d, v)
		}
		if d != "*" && !model.LabelValue(d).IsValid() {
			return fmt.Errorf("alerts config: reference_wa: bad device %q", d)
		}
	}
	for k, v := range map[string]float64{"irq_busiest_share_max": c.IRQBusiestShareMax, "softirq_busiest_max": c.SoftirqBusiestMax, "filesystem_used_max": c.FilesystemUsedMax, "filesystem_used_max_in_run": c.FilesystemUsedMaxInRun, "placement_observed_min": c.PlacementObservedMin,
		"checkpoint_age_max": c.CheckpointAgeMax, "loadgen_error_ratio_max": c.LoadgenErrorRatioMax} {
		if !(v > 0 && v <= 1) {
			return fmt.Errorf("alerts config: %s = %v, want a ratio in (0, 1]", k, v)
		}
	}
	if c.RegressionMargin < 0 || c.WARiseLimit <= 0 {
		return fmt.Errorf("alerts config: regression_margin must be >= 0 and wa_rise_limit > 0")
	}
	return nil
}

// Seconds returns a validated duration in seconds (used by tests and e2e).
func Seconds(d string) time.Duration {
	v, err := model.ParseDuration(d)
	if err != nil {
		panic(err) // only called on validated configs
	}
	return time.Duration(v)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
