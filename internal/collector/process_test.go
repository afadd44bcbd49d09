package collector

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestProcessCollectorRealProcesses watches real processes: two children
// of a copy of sleep under a name nothing else runs as (by comm name) appear
// with their pids, CPU modes, memory and allowed CPUs; a name nothing runs
// under is matched 0 with no other series.
func TestProcessCollectorRealProcesses(t *testing.T) {
	const name = "walab-proctest" // a comm name: at most 15 bytes
	bin := filepath.Join(t.TempDir(), name)
	sleep, err := exec.LookPath("sleep")
	require.NoError(t, err)
	data, err := os.ReadFile(sleep)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bin, data, 0o755))
	var pids []string
	for range 2 {
		cmd := exec.Command(bin, "60")
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		pids = append(pids, strconv.Itoa(cmd.Process.Pid))
	}
	c, err := newProcessCollector(Env{Paths: hostPaths, Config: hostConfig(t, "process:\n  names: ["+name+", walab-nothing]\n")})
	require.NoError(t, err)
	out, err := hostScrape(t, c)
	require.NoError(t, err)
	require.Contains(t, out, `walab_process_matched{name="walab-nothing"} 0`)
	require.Contains(t, out, `walab_process_matched{name="`+name+`"} 2`)
	for _, pid := range pids {
		for _, mode := range []string{"user", "system"} {
			require.Contains(t, out, `walab_process_cpu_seconds_total{mode="`+mode+`",name="`+name+`",pid="`+pid+`"}`)
		}
		require.Contains(t, out, `walab_process_resident_memory_bytes{name="`+name+`",pid="`+pid+`"}`)
		require.Contains(t, out, `walab_process_allowed_cpus{name="`+name+`",pid="`+pid+`"} `+strconv.Itoa(runtime.NumCPU()))
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
