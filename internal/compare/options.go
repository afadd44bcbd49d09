package compare

import (
	"fmt"
	"time"
)

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
