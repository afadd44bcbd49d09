// Package cliflag holds the validated number flags every walab command
// line uses (walab and loadgen; the exporter has no number flags): a float that must be finite and
// within its bounds, an int within its bounds. strconv.ParseFloat takes
// "NaN" and "Inf", and NaN passes every range check written as
// v < lo || v > hi (both comparisons are false), so a value must be
// checked finite before anything else.
package cliflag

import (
	"fmt"
	"math"
	"strconv"

	"github.com/alecthomas/kingpin/v2"
)

// ParseFloat parses s as a finite float64 within [lo, hi] (±Inf bounds:
// unbounded on that side).
func ParseFloat(s string, lo, hi float64) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return v, CheckFloat(v, lo, hi)
}

// CheckFloat: v is finite and within [lo, hi].
func CheckFloat(v, lo, hi float64) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Errorf("%g is not a finite number", v)
	case v < lo || v > hi:
		return fmt.Errorf("%g is outside %s", v, bounds(lo, hi))
	}
	return nil
}

func bounds(lo, hi float64) string {
	switch {
	case math.IsInf(lo, -1):
		return fmt.Sprintf("..%g", hi)
	case math.IsInf(hi, 1):
		return fmt.Sprintf("%g..", lo)
	}
	return fmt.Sprintf("%g..%g", lo, hi)
}

// Float is a float64 flag value (kingpin.Value): finite and within its
// bounds.
type Float struct {
	name   string // --flag, in errors
	p      *float64
	lo, hi float64
}

// FloatVar binds kingpin flag c to p as a Float (math.Inf for an open
// side); its errors name the flag.
func FloatVar(c *kingpin.FlagClause, p *float64, lo, hi float64) {
	c.SetValue(&Float{name: "--" + c.Model().Name, p: p, lo: lo, hi: hi})
}

// Set parses and checks one value.
func (f *Float) Set(s string) error {
	v, err := ParseFloat(s, f.lo, f.hi)
	if err != nil {
		return named(f.name, err)
	}
	*f.p = v
	return nil
}

func (f *Float) String() string { return strconv.FormatFloat(*f.p, 'g', -1, 64) }

// Int is an int flag value (kingpin.Value) within its bounds.
type Int struct {
	name   string
	p      *int
	lo, hi int
}

// IntVar binds kingpin flag c to p as an Int; its errors name the flag.
func IntVar(c *kingpin.FlagClause, p *int, lo, hi int) {
	c.SetValue(&Int{name: "--" + c.Model().Name, p: p, lo: lo, hi: hi})
}

// Set parses and checks one value.
func (f *Int) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil {
		return named(f.name, fmt.Errorf("%q is not an integer", s))
	}
	if v < f.lo || v > f.hi {
		return named(f.name, fmt.Errorf("%d is outside %d..%d", v, f.lo, f.hi))
	}
	*f.p = v
	return nil
}

func (f *Int) String() string { return strconv.Itoa(*f.p) }

func named(name string, err error) error {
	if name == "" {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}
