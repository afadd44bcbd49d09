package collector

import (
	"os/exec"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestProcessCollectorRealProcesses watches real processes: two `sleep`
// children (by comm name) appear with their pids, CPU modes, memory and
// allowed CPUs; a name nothing runs under is matched 0 with no other series.
func TestProcessCollectorRealProcesses(t *testing.T) {
	var pids []string
	for range 2 {
		cmd := exec.Command("sleep", "60")
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		pids = append(pids, strconv.Itoa(cmd.Process.Pid))
	}
	c, err := newProcessCollector(Env{Paths: hostPaths, Config: hostConfig(t, "process:\n  names: [sleep, walab-nothing]\n")})
	require.NoError(t, err)
	out, err := hostScrape(t, c)
	require.NoError(t, err)
	require.Contains(t, out, `walab_process_matched{name="walab-nothing"} 0`)
	require.Regexp(t, `walab_process_matched\{name="sleep"\} [2-9]`, out)
	for _, pid := range pids {
		for _, mode := range []string{"user", "system"} {
			require.Contains(t, out, `walab_process_cpu_seconds_total{mode="`+mode+`",name="sleep",pid="`+pid+`"}`)
		}
		require.Contains(t, out, `walab_process_resident_memory_bytes{name="sleep",pid="`+pid+`"}`)
		require.Contains(t, out, `walab_process_allowed_cpus{name="sleep",pid="`+pid+`"} `+strconv.Itoa(runtime.NumCPU()))
	}
	require.NotContains(t, out, `name="walab-nothing",pid=`)
}

func TestProcessCollectorConfig(t *testing.T) {
	for _, tc := range []struct{ yml, err string }{
		{"process:\n  names: [a/b]\n", "without '/'"},
		{"process:\n  names: [averyveryverylongname]\n", "1 to 15 characters"},
		{"process:\n  names: [mysqld, mysqld]\n", "listed twice"},
	} {
		_, err := newProcessCollector(Env{Paths: hostPaths, Config: hostConfig(t, tc.yml)})
		require.ErrorContains(t, err, tc.err)
	}
}

// hostPaths are this machine's /proc, /sys and /dev, as New fills unset
// roots: the tests that read the real host call a constructor directly.
var hostPaths = Paths{}.withDefaults()
