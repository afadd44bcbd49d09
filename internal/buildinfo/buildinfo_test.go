package buildinfo

import (
	"bytes"
	"runtime"
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
		{"toolchain stamp", stamped, "", "", "", Info{Version: "v0.0.0-20261204164709-986763a0c401+dirty", Revision: "986763a0c40171b320cf083ed470eb7229eac028", Modified: true, GoVersion: "go1.26.8"}},
		{"stamp wins over ldflags", stamped, "v9", "abc", "false", Info{Version: "v0.0.0-20261204164709-986763a0c401+dirty", Revision: "986763a0c40171b320cf083ed470eb7229eac028", Modified: true, GoVersion: "go1.26.8"}},
		{"go run with ldflags", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, "", "abc", "true", Info{Version: "(devel)", Revision: "abc", Modified: true, GoVersion: "go1.26.8"}},
		{"nothing known", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, "", "", "", Info{Version: "(devel)", Revision: Unknown, Modified: false, GoVersion: "go1.26.8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, from(tc.bi, tc.ldV, tc.ldR, tc.ldM))
		})
	}
	require.Equal(t, "x version v1 (commit abc-modified, go1.26.8)", Info{Version: "v1", Revision: "abc", Modified: true, GoVersion: "go1.26.8"}.String("x"))
	require.Equal(t, "x version (devel) (commit unknown, go1.26.8)", Info{Version: "(devel)", Revision: Unknown, Modified: true, GoVersion: "go1.26.8"}.String("x"))
}

// TestPrint: --version's text has the Prometheus exporters' layout, and a
// build told no date says so instead of printing a date.
func TestPrint(t *testing.T) {
	platform := runtime.GOOS + "/" + runtime.GOARCH
	in := Info{Version: "0.1.0", Revision: "abc", GoVersion: "go1.26.8", BuildDate: "20261206-08:57:19"}
	require.Equal(t, "walab_exporter, version 0.1.0 (revision: abc)\n"+
		"  build date:       20261206-08:57:19\n"+
		"  go version:       go1.26.8\n"+
		"  platform:         "+platform, in.Print("walab_exporter"))
	in.BuildDate, in.Modified = "", true
	require.Equal(t, "x, version 0.1.0 (revision: abc-modified)\n"+
		"  build date:       unknown\n"+
		"  go version:       go1.26.8\n"+
		"  platform:         "+platform, in.Print("x"))
}

// TestParsePrint: another binary's --version text reads back into the
// Info that printed it.
func TestParsePrint(t *testing.T) {
	for _, in := range []Info{
		{Version: "0.1.0", Revision: "abc", GoVersion: "go1.26.8", BuildDate: "20261206-08:57:19"},
		{Version: "(devel)", Revision: Unknown, Modified: false, GoVersion: "go1.26.8"},
		{Version: "0.1.0", Revision: "abc", Modified: true, GoVersion: "go1.26.8"},
	} {
		got, ok := ParsePrint(in.Print("loadgen") + "\n")
		require.True(t, ok, in)
		require.Equal(t, in, got)
	}
	_, ok := ParsePrint("loadgen version v1 (commit abc, go1.26.8)\n")
	require.False(t, ok)
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
		require.Equal(t, Get().Print("prog")+"\n", out.String())
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
			require.Equal(t, Get().Print("prog")+"\n", out.String(), args)
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
