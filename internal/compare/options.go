package compare

import (
	"fmt"
	"time"
)

// Selection of the compared rounds of each run.
const (
	SelectSteady      = "steady"       // the last N complete rounds from the first steady window on (default)
	SelectLastNonZero = "last-nonzero" // seed 000: the last N rounds with host writes
)

// Options select the two runs, the device and how they are judged.
type Options struct {
	Baseline, Candidate string // run ids (walab_loadgen_run_info{run_id})
	// BaselineRange and CandidateRange, when set, give a run as a time
	// range instead of a run id (load driven by another tool).
	BaselineRange, CandidateRange *[2]time.Time
	Device                        string
	// Array, when set, compares an md/dm array's chain instead of a device
	// (ArrayTable): WA is its leaves' NAND bytes per array byte.
	Array     string
	From, To  time.Time     // where to search for the runs
	LastHours int           // rounds compared per run; seed 000 keeps 12
	Round     time.Duration // one row of the table; default 1h (a simulated hour is 1m)
	Select    string        // SelectSteady (default) or SelectLastNonZero
	Steady    Steady        // default SNIA
	Checks    CheckOptions
	Interval  BatchMeans
	// Reps is how many repetitions of each run the caller made (an
	// experiment's cycles); the verdict compares one pair, so its
	// performance changes never have an interval, and with Reps >= 2 they
	// point at the caller's interval between repetitions instead of asking
	// for cycles. 0 or 1: one run each.
	Reps int
}

// The placement check's modes (CheckOptions.Placement).
const (
	PlacementDiffers = "differs" // the candidate has streams/FDP on, the baseline off (default)
	PlacementOff     = "off"     // no placement check
)

// DefaultOptions are the options Compare reads a zero field as, for a CLI
// to start its flags from: 12 rounds of 1h, steady selection, SNIA's
// criterion, the checks' default tolerances, batch means of sqrt(n).
func DefaultOptions() Options {
	return Options{LastHours: 12, Round: time.Hour, Select: SelectSteady, Steady: SNIA, Checks: CheckOptions{}.withDefaults()}
}

// withDefaults is o with each zero field read as DefaultOptions' value.
func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.LastHours <= 0 {
		o.LastHours = d.LastHours
	}
	if o.Round <= 0 {
		o.Round = d.Round
	}
	if o.Select == "" {
		o.Select = d.Select
	}
	if o.Steady == (Steady{}) {
		o.Steady = d.Steady
	}
	if o.Steady.Drift == 0 {
		o.Steady.Drift = DefaultDrift
	}
	o.Checks = o.Checks.withDefaults()
	return o
}

// FieldError is a value of one Options field that means nothing. Field
// names the field ("LastHours", "Checks.Placement"); a CLI names its flag.
type FieldError struct {
	Field string
	Value any
	Want  string
}

func (e *FieldError) Error() string { return fmt.Sprintf("%s %v: %s", e.Field, e.Value, e.Want) }

// Validate refuses options built from DefaultOptions that mean nothing: a
// zero count there is the caller's own, not "the default". Steady's own
// error names the criterion's value.
func (o Options) Validate() error {
	switch {
	case o.LastHours < 1:
		return &FieldError{"LastHours", o.LastHours, "want at least 1"}
	case o.Round < time.Second:
		return &FieldError{"Round", o.Round, "want at least 1s"}
	case o.Select != SelectSteady && o.Select != SelectLastNonZero:
		return &FieldError{"Select", o.Select, "want " + SelectSteady + " or " + SelectLastNonZero}
	case o.Checks.Placement != PlacementDiffers && o.Checks.Placement != PlacementOff:
		return &FieldError{"Checks.Placement", o.Checks.Placement, "want " + PlacementDiffers + " or " + PlacementOff}
	}
	return o.Steady.Validate()
}

// subject names what is compared: the device, or the array.
func (o Options) subject() string {
	if o.Array != "" {
		return "array " + o.Array
	}
	return o.Device
}

// CheckOptions are the tolerances of the comparability checks. A nil
// tolerance is not given and reads as DefaultOptions' value; a given 0 is
// exact (no difference passes), never "the default".
type CheckOptions struct {
	// AllowDifferentDevice accepts runs on drives with another serial or
	// firmware.
	AllowDifferentDevice bool
	// FillTolerance is the largest difference of filesystem fill at run
	// start, as a share of the filesystem (default 0.10: 31% vs 45% fails).
	FillTolerance *float64
	// RateTolerance is the largest relative difference of the host write
	// rate over the compared rounds (the two runs must offer the same load;
	// default 0.25).
	RateTolerance *float64
	// Placement: "differs" (default: the candidate has placement on, the
	// baseline off) or "off" (no placement check, for other comparisons).
	Placement string
	// AllowConfigDrift accepts runs whose MySQL variables differ (they
	// are still listed).
	AllowConfigDrift bool
	// PlacementMinShare is the least share of the candidate's write bytes
	// that must carry a placement id when the placement tracer counted
	// them (default 0.5); the baseline may carry at most
	// BaselineMaxShare (default 0.05).
	PlacementMinShare, BaselineMaxShare *float64
	// NamespaceMinShare is the least share of the candidate's write bytes
	// that must go outside its busiest namespace when placement is by
	// namespace (no tracer counts, each namespace's own SMART log): one of
	// two like instances on a namespace of its own writes about half
	// (default 0.2); the baseline may write at most BaselineMaxShare there.
	NamespaceMinShare *float64
	// WornInMin is the least host writes, in drive capacities, from a
	// run's start to its first compared round (default 1); WornInTolerance
	// the largest difference of the two runs' figures, as a share of the
	// larger (default 0.25).
	WornInMin, WornInTolerance *float64
}

// Tolerance is a given tolerance, for a CheckOptions field.
func Tolerance(v float64) *float64 { return &v }

// withDefaults fills the tolerances not given with fresh copies of the
// defaults (a caller's flag may point at one and change it).
func (c CheckOptions) withDefaults() CheckOptions {
	for _, f := range []struct {
		p   **float64
		def float64
	}{{&c.FillTolerance, 0.10}, {&c.RateTolerance, 0.25}, {&c.PlacementMinShare, 0.5}, {&c.BaselineMaxShare, 0.05}, {&c.NamespaceMinShare, 0.2}, {&c.WornInMin, 1}, {&c.WornInTolerance, 0.25}} {
		if *f.p == nil {
			*f.p = Tolerance(f.def)
		}
	}
	if c.Placement == "" {
		c.Placement = PlacementDiffers
	}
	return c
}

// ResolvedChecks are c as Compare judges with them: each tolerance not
// given is the default, each given one (0 too) is kept.
func ResolvedChecks(c CheckOptions) CheckOptions { return c.withDefaults() }
