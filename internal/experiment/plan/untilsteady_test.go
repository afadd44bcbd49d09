package plan

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestUntilSteadyPlan: until_steady parses with its defaults, and each
// setting that cannot work is refused with the reason.
func TestUntilSteadyPlan(t *testing.T) {
	doc := func(head, us string) []byte {
		return []byte(fmt.Sprintf(`name: s
%sdevice: nvme0
round: 1h
runs:
  - name: base
    command: ./bench.sh
    until_steady: %s
`, head, us))
	}
	const exp = "exporter: http://127.0.0.1:10131\n"
	p, err := Parse(doc(exp, "{window: 5, drift: 3%, max: 12h}"))
	require.NoError(t, err)
	u := p.Runs[0].UntilSteady
	require.NotNil(t, u)
	require.Equal(t, 5, u.WindowOrDefault())
	require.InDelta(t, 0.03, u.DriftOrDefault(), 1e-12)
	require.Equal(t, 12*time.Hour, u.Max.D())

	p, err = Parse(doc(exp, "{max: 12h}"))
	require.NoError(t, err)
	require.Equal(t, DefaultSteadyWindow, p.Runs[0].UntilSteady.WindowOrDefault())
	require.InDelta(t, DefaultSteadyDrift, p.Runs[0].UntilSteady.DriftOrDefault(), 1e-12)

	for _, c := range []struct{ head, us, want string }{
		{exp, "{drift: 3, max: 12h}", "want a percentage"},
		{exp, "{drift: 300%, max: 12h}", "want a percentage"},
		{exp, "{window: 1, max: 12h}", "until_steady.window 1: at least 2 rounds"},
		{exp, "{window: 5}", "until_steady.max missing"},
		{exp, "{window: 5, max: 3h}", "shorter than its window of 5 rounds"},
		{"", "{max: 12h}", "the plan needs exporter"},
	} {
		_, err := Parse(doc(c.head, c.us))
		require.ErrorContains(t, err, c.want, c.us)
	}
}
