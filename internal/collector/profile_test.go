package collector

import (
	"fmt"
	"strings"
	"testing"

	"github.com/alecthomas/kingpin/v2"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/cpuprof"
)

// manyFuncs is a profile source with 500 functions: the collector must
// export only its top N.
type manyFuncs struct{}

func (manyFuncs) Top(n int) []cpuprof.FuncCount {
	var out []cpuprof.FuncCount
	for i := range 500 {
		out = append(out, cpuprof.FuncCount{FuncKey: cpuprof.FuncKey{Function: fmt.Sprintf("f%03d", i), Module: "mariadbd"}, Total: uint64(1000 - i), Recent: uint64(500 - i)})
	}
	if len(out) > n {
		out = out[:n]
	}
	return out
}

func (manyFuncs) Totals() (uint64, map[string]uint64, int) {
	return 123456, map[string]uint64{cpuprof.ErrStackLost: 7, cpuprof.ErrCountsFull: 5}, 2
}

func (manyFuncs) Frequency() int { return 99 }

func (manyFuncs) Unnamed() map[string]string {
	return map[string]string{"kernel": cpuprof.UnnamedNeedsSyslog}
}
func (manyFuncs) Unsampled() int { return 76 }

// TestProfileSeriesBounded: at most --collector.profile.top function
// series, whatever the profile holds, beside the totals and every error
// kind.
func TestProfileSeriesBounded(t *testing.T) {
	parseFlags(t, "--collector.profile.top=7")
	c, err := newProfileCollector(Env{Profiler: Profiler{Source: manyFuncs{}}})
	require.NoError(t, err)
	out, err := hostScrape(t, c)
	require.NoError(t, err)
	require.Equal(t, 7, strings.Count(out, "walab_profile_function_samples_total{"), out)
	require.Contains(t, out, `walab_profile_function_samples_total{function="f000",module="mariadbd"} 1000`)
	require.Contains(t, out, "walab_profile_samples_total 123456")
	require.Contains(t, out, `walab_profile_errors_total{kind="stack_lost"} 7`)
	require.Contains(t, out, `walab_profile_errors_total{kind="drain"} 0`)
	require.Contains(t, out, `walab_profile_errors_total{kind="counts_full"} 5`, "samples the full map could not count")
	require.Contains(t, out, "walab_profile_sampling_frequency_hertz 99")
	require.Contains(t, out, "walab_profile_up 1")
	require.Contains(t, out, `walab_profile_frames_unnamed_info{frames="kernel",reason="needs_cap_syslog"} 1`)
	require.NotContains(t, out, `frames="user"`, "user frames are named")
	promtoolClean(t, out)
	require.Contains(t, out, "walab_profile_processes 2")
	require.Contains(t, out, "walab_profile_unsampled_processes 76", "processes of a sampled name the pid map cannot hold are named")

	parseFlags(t, fmt.Sprintf("--collector.profile.top=%d", MaxProfileTop+1))
	_, err = newProfileCollector(Env{Profiler: Profiler{Source: manyFuncs{}}})
	require.ErrorContains(t, err, "must be 1 to")
}

// TestProfileDown: a profiler that could not start is up 0 with its
// reason, and no sample count is made up.
func TestProfileDown(t *testing.T) {
	for _, reason := range []string{cpuprof.ReasonPermission, cpuprof.ReasonKernel} {
		c, err := newProfileCollector(Env{Profiler: Profiler{Down: reason}})
		require.NoError(t, err)
		out, err := hostScrape(t, c)
		require.NoError(t, err)
		require.Contains(t, out, "walab_profile_up 0")
		require.Contains(t, out, `walab_profile_error_info{reason="`+reason+`"} 1`)
		require.NotContains(t, out, "walab_profile_samples_total")
		promtoolClean(t, out)
	}
}

// TestProfileFlags: the profile flags' defaults, and processes given
// replacing them (kingpin appends to what the slice holds), parse after
// parse.
func TestProfileFlags(t *testing.T) {
	parseFlags(t)
	require.Equal(t, profileOptions{frequency: 99, top: 20, processes: []string{"mysqld", "mariadbd"}}, *profileFlags)
	for range 2 {
		parseFlags(t, "--collector.profile.process=a", "--collector.profile.process=b", "--collector.profile.frequency=49")
		require.Equal(t, profileOptions{frequency: 49, top: 20, processes: []string{"a", "b"}}, *profileFlags)
	}
	parseFlags(t, "--collector.profile.process=a/b")
	require.ErrorContains(t, CheckFlags(), `--collector.profile.process="a/b": a comm name is`)
}

// parseFlags parses a command line of the collectors' flags as the
// exporter does, and parses an empty one (the defaults) after the test.
func parseFlags(t *testing.T, args ...string) {
	t.Helper()
	parse := func(args []string) error {
		app := kingpin.New("test", "")
		RegisterFlags(app)
		_, err := app.Parse(args)
		return err
	}
	require.NoError(t, parse(args))
	t.Cleanup(func() { require.NoError(t, parse(nil)) })
}
