package cli

import (
	"bytes"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestServerDiesMidRun (issue 33 item 6): the server is killed one second
// into an 8 s run and comes back about three seconds later. The failed
// reconnect attempts show in the report lines and the summary, and the
// run, its target unreachable for far more than --max-unreachable, exits
// exitUnreachable and says so (it used to exit 0 with err/s 0.00 and
// reconn/s 0.00 throughout the outage).
func TestServerDiesMidRun(t *testing.T) {
	in, _, conn := preparedServer(t, "walab_dies_midrun")
	restarted := make(chan struct{})
	go func() {
		defer close(restarted)
		time.Sleep(time.Second)
		in.Kill()
		time.Sleep(3 * time.Second)
		in.Restart()
	}()
	var out, errb bytes.Buffer
	code := Main(append([]string{"oltp_point_select", "run", "--threads", "2", "--time", "8", "--report-interval", "1"}, conn...), &out, &errb)
	<-restarted // the server's cleanup must not race its restart
	require.Equal(t, exitUnreachable, code, "stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	require.Regexp(t, `target default: unreachable for [0-9.]+s of [0-9.]+s \([0-9.]+%\), more than --max-unreachable 0\.05 \(5%\)`, errb.String())

	fails := 0.0
	for _, m := range regexp.MustCompile(`conn-fail/s: ([0-9.]+)`).FindAllStringSubmatch(out.String(), -1) {
		v, err := strconv.ParseFloat(m[1], 64)
		require.NoError(t, err)
		fails += v
	}
	require.Positive(t, fails, "the report lines show the failed reconnects:\n%s", out.String())
	require.Regexp(t, `failed connection attempts:\s+[1-9]\d* `, out.String())
	require.Regexp(t, `target unreachable:\s+[0-9.]+s \([0-9.]+% of the run\)`, out.String())
	t.Logf("stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
}
