package buildinfo

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/alecthomas/kingpin/v2"
	"github.com/stretchr/testify/require"
)

func TestFrom(t *testing.T) {
	stamped := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261204164709-986763a0c401+dirty"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "986763a0c40171b320cf083ed470eb7229eac028"}, {Key: "vcs.modified", Value: "true"}}}
	for _, tc := range []struct {
		name          string
		bi            *debug.BuildInfo
		ldV, ldR, ldM string
		want          Info
	}{
		{"toolchain stamp", stamped, "", "", "", Info{"v0.0.0-20261204164709-986763a0c401+dirty", "986763a0c40171b320cf083ed470eb7229eac028", true, "go1.26.8"}},
		{"stamp wins over ldflags", stamped, "v9", "abc", "false", Info{"v0.0.0-20261204164709-986763a0c401+dirty", "986763a0c40171b320cf083ed470eb7229eac028", true, "go1.26.8"}},
		{"go run with ldflags", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, "", "abc", "true", Info{"(devel)", "abc", true, "go1.26.8"}},
		{"nothing known", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, "", "", "", Info{"(devel)", Unknown, false, "go1.26.8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, from(tc.bi, tc.ldV, tc.ldR, tc.ldM))
		})
	}
	require.Equal(t, "x version v1 (commit abc-modified, go1.26.8)", Info{"v1", "abc", true, "go1.26.8"}.String("x"))
	require.Equal(t, "x version (devel) (commit unknown, go1.26.8)", Info{"(devel)", Unknown, true, "go1.26.8"}.String("x"))
}

// TestGet: the test binary has a Go version and some revision, never "".
func TestGet(t *testing.T) {
	i := Get()
	require.NotEmpty(t, i.GoVersion)
	require.NotEmpty(t, i.Revision)
	require.NotEmpty(t, i.Version)
}

// TestVersionFlag: --version prints the line and ends the parse before
// kingpin asks for the missing command.
func TestVersionFlag(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"--version", "sub"}} {
		app := kingpin.New("prog", "")
		app.Terminate(nil)
		app.Command("sub", "")
		var out bytes.Buffer
		asked := VersionFlag(app, "prog", &out)
		_, _ = app.Parse(args)
		require.True(t, *asked, args)
		require.Equal(t, Get().String("prog")+"\n", out.String())
	}
	app := kingpin.New("prog", "")
	app.Command("sub", "")
	var out bytes.Buffer
	asked := VersionFlag(app, "prog", &out)
	_, err := app.Parse([]string{"sub"})
	require.NoError(t, err)
	require.False(t, *asked)
	require.Empty(t, out.String())
}

// TestVersionFlagValue (issue 42, low): --no-version and --version=false
// neither print the version nor stop the program; --version=true does.
func TestVersionFlagValue(t *testing.T) {
	for args, want := range map[string]bool{"--no-version sub": false, "--version=false sub": false, "sub --no-version": false,
		"--version=true sub": true, "--version=1": true} {
		app := kingpin.New("prog", "")
		app.Terminate(nil)
		app.Command("sub", "")
		var out bytes.Buffer
		asked := VersionFlag(app, "prog", &out)
		cmd, err := app.Parse(VersionArgs(strings.Fields(args)))
		require.Equal(t, want, *asked, args)
		if want {
			require.Equal(t, Get().String("prog")+"\n", out.String(), args)
			continue
		}
		require.NoError(t, err, args)
		require.Equal(t, "sub", cmd, args)
		require.Empty(t, out.String(), args)
	}
}

func TestVersionArgs(t *testing.T) {
	require.Equal(t, []string{"--version", "--version=maybe", "x", "--", "--version=false"},
		VersionArgs([]string{"--version=false", "--no-version", "--version=1", "--version=maybe", "x", "--", "--version=false"}))
}
