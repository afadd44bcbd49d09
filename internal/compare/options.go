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
