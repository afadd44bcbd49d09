package cli

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/runner"
)

func TestJudgeRun(t *testing.T) {
	ok := &runner.Result{Target: "a", Transactions: 100, Errors: 2, TotalSeconds: 10}
	dead := &runner.Result{Target: "b", Transactions: 0, Errors: 37, Reconnects: 5, TotalSeconds: 10}
	noisy := &runner.Result{Target: "c", Transactions: 80, Errors: 20, TotalSeconds: 10}
	away := &runner.Result{Target: "d", Transactions: 50, ConnFailures: 40, UnreachableSeconds: 9, TotalSeconds: 12}
	tests := []struct {
		name        string
		interrupted bool
		max         float64
		rs          []*runner.Result
		code        int
		want        string
	}{
		{"healthy", false, 1, []*runner.Result{ok}, 0, ""},
		{"nothing completed", false, 1, []*runner.Result{ok, dead}, 1, "target b: no transaction completed in 10s (37 failed attempts, 0 failed connection attempts, 5 reconnects)"},
		{"error rate above the limit", false, 0.1, []*runner.Result{noisy}, 1, "target c: 20 of 100 attempts failed (20%), more than --max-error-rate 0.1 (10%)"},
		{"error rate within the limit", false, 0.25, []*runner.Result{noisy}, 0, ""},
		{"stopped by the user", true, 0, []*runner.Result{dead}, 0, ""},
		{"unreachable for most of the run", false, 1, []*runner.Result{ok, away}, exitUnreachable,
			"target d: unreachable for 9.0s of 12.0s (75.0%), more than --max-unreachable 0.05 (5%): 40 failed connection attempts"},
		{"unreachable wins over a failed error rate", false, 0.1, []*runner.Result{noisy, away}, exitUnreachable, "target c: 20 of 100"},
		{"unreachable within the limit", false, 1, []*runner.Result{{Target: "e", Transactions: 50, UnreachableSeconds: 0.5, TotalSeconds: 12}}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w bytes.Buffer
			require.Equal(t, tt.code, judgeRun(tt.interrupted, limits{errorRate: tt.max, unreachable: 0.05}, tt.rs, &w))
			if tt.want == "" {
				require.Empty(t, w.String())
			} else {
				require.Contains(t, w.String(), tt.want)
			}
		})
	}
}

// TestRunAgainstNoServerExitsNonZero: a server unreachable throughout used
// to print zero TPS and exit 0, which every script looping over runs took
// for a result. Nothing listens on port 1 of loopback.
func TestRunAgainstNoServerExitsNonZero(t *testing.T) {
	var out, errOut bytes.Buffer
	code := Main([]string{"oltp_point_select", "--mysql-host=127.0.0.1", "--mysql-port=1", "--mysql-user=root", "--time=1", "--web.disable", "run"}, &out, &errOut)
	require.Equal(t, 1, code, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	require.Contains(t, errOut.String(), "target default: no transaction completed")
}
