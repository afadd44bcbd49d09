package workload

import (
	"fmt"
	"strconv"
	"time"
)

// FlagSet collects a workload's flags. The command line binds them to its
// parser; the flag model (types, defaults, ranges) is here, so lists such
// as the boolean flags are derived from it, not kept by hand.
type FlagSet struct {
	flags []*Flag
}

// Flag is one option. Value points at the variable that receives it (*int,
// *int64, *uint64, *float64, *string, *bool or *time.Duration); the
// variable's value at definition is the default.
type Flag struct {
	Name, Help string
	Value      any
	// Set is filled in by the parser: the flag was given on the command line.
	Set bool
	// Hidden flags are accepted but not listed in --help (legacy spellings).
	Hidden bool

	min, max       float64
	hasMin, hasMax bool
}

// Flags returns the flags in definition order.
func (s *FlagSet) Flags() []*Flag { return s.flags }

func (s *FlagSet) add(p any, name, help string) *Flag {
	f := &Flag{Name: name, Help: help, Value: p}
	s.flags = append(s.flags, f)
	return f
}

// Int defines an int flag with default def.
func (s *FlagSet) Int(p *int, name string, def int, help string) *Flag {
	*p = def
	return s.add(p, name, help)
}

// Int64 defines an int64 flag with default def.
func (s *FlagSet) Int64(p *int64, name string, def int64, help string) *Flag {
	*p = def
	return s.add(p, name, help)
}

// Uint64 defines a uint64 flag with default def.
func (s *FlagSet) Uint64(p *uint64, name string, def uint64, help string) *Flag {
	*p = def
	return s.add(p, name, help)
}

// Float defines a float64 flag with default def.
func (s *FlagSet) Float(p *float64, name string, def float64, help string) *Flag {
	*p = def
	return s.add(p, name, help)
}

// String defines a string flag with default def.
func (s *FlagSet) String(p *string, name, def, help string) *Flag {
	*p = def
	return s.add(p, name, help)
}

// Bool defines a boolean flag with default def.
func (s *FlagSet) Bool(p *bool, name string, def bool, help string) *Flag {
	*p = def
	return s.add(p, name, help)
}

// Duration defines a duration flag with default def.
func (s *FlagSet) Duration(p *time.Duration, name string, def time.Duration, help string) *Flag {
	*p = def
	return s.add(p, name, help)
}

// Min sets the smallest value the flag accepts.
func (f *Flag) Min(v float64) *Flag {
	f.min, f.hasMin = v, true
	return f
}

// Max sets the largest value the flag accepts.
func (f *Flag) Max(v float64) *Flag {
	f.max, f.hasMax = v, true
	return f
}

// Range sets both bounds.
func (f *Flag) Range(lo, hi float64) *Flag { return f.Min(lo).Max(hi) }

// HideHelp keeps the flag out of --help.
func (f *Flag) HideHelp() *Flag {
	f.Hidden = true
	return f
}

// IsBool reports a boolean flag (on/off, no value needed).
func (f *Flag) IsBool() bool {
	_, ok := f.Value.(*bool)
	return ok
}

// Default is the current value as text (before parsing: the default).
func (f *Flag) Default() string {
	switch p := f.Value.(type) {
	case *int:
		return strconv.Itoa(*p)
	case *int64:
		return strconv.FormatInt(*p, 10)
	case *uint64:
		return strconv.FormatUint(*p, 10)
	case *float64:
		return strconv.FormatFloat(*p, 'g', -1, 64)
	case *string:
		return *p
	case *bool:
		return strconv.FormatBool(*p)
	case *time.Duration:
		return p.String()
	}
	panic(fmt.Sprintf("workload: flag %s has unsupported type %T", f.Name, f.Value))
}

func (f *Flag) number() (float64, bool) {
	switch p := f.Value.(type) {
	case *int:
		return float64(*p), true
	case *int64:
		return float64(*p), true
	case *uint64:
		return float64(*p), true
	case *float64:
		return *p, true
	case *time.Duration:
		return p.Seconds(), true
	}
	return 0, false
}

// Check tests the parsed value against the flag's range. The error names
// the value and the range; the caller adds the flag name.
func (f *Flag) Check() error {
	v, ok := f.number()
	if !ok || (!f.hasMin && !f.hasMax) {
		return nil
	}
	unit := ""
	if _, d := f.Value.(*time.Duration); d {
		unit = "s"
	}
	switch {
	case f.hasMin && f.hasMax && (v < f.min || v > f.max):
		return fmt.Errorf("%s out of range %g..%g%s", f.Default(), f.min, f.max, unit)
	case f.hasMin && v < f.min:
		return fmt.Errorf("%s is below the minimum %g%s", f.Default(), f.min, unit)
	case f.hasMax && v > f.max:
		return fmt.Errorf("%s is above the maximum %g%s", f.Default(), f.max, unit)
	}
	return nil
}
