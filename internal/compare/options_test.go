package compare

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestDefaultOptions: the defaults a CLI starts from are valid and are
// what Compare reads a zero field as.
func TestDefaultOptions(t *testing.T) {
	d := DefaultOptions()
	require.NoError(t, d.Validate())
	require.Equal(t, CheckOptions{}.withDefaults(), d.Checks)
	require.Equal(t, d.Checks, d.Checks.withDefaults())
	require.Equal(t, SNIA, d.Steady)
	require.Equal(t, Options{LastHours: 12, Round: time.Hour, Select: SelectSteady, Steady: SNIA, Checks: d.Checks}, d)
}

// TestOptionsValidate: each refused value comes back as a FieldError
// naming the field and the value.
func TestOptionsValidate(t *testing.T) {
	for _, tt := range []struct {
		edit  func(*Options)
		field string
		msg   string
	}{
		{func(o *Options) { o.LastHours = 0 }, "LastHours", "LastHours 0: want at least 1"},
		{func(o *Options) { o.Round = -time.Hour }, "Round", "Round -1h0m0s: want at least 1s"},
		{func(o *Options) { o.Select = "best" }, "Select", "Select best: want steady or last-nonzero"},
		{func(o *Options) { o.Checks.Placement = "" }, "Checks.Placement", "Checks.Placement : want differs or off"},
	} {
		o := DefaultOptions()
		tt.edit(&o)
		err := o.Validate()
		var fe *FieldError
		require.True(t, errors.As(err, &fe), "%v", err)
		require.Equal(t, tt.field, fe.Field)
		require.EqualError(t, err, tt.msg)
	}
	o := DefaultOptions()
	o.Steady.Window = 1
	require.ErrorContains(t, o.Validate(), "steady-state window 1")
}
