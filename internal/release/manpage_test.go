package release

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/stretchr/testify/require"
)

// kingpinManPage is what kingpin's --help-man prints for an application
// like the exporter's: a title line with the version text, a bare NAME.
func kingpinManPage(t *testing.T) string {
	app := kingpin.New("exporter", "walab's Prometheus exporter.")
	app.Version("walab_exporter, version 0.1.0 (revision: abc)\n  build date: x")
	app.Flag("config.file", "Exporter YAML configuration.").String()
	app.Command("serve", "Serve metrics.").Default()
	var out bytes.Buffer
	app.UsageWriter(&out)
	c, err := app.ParseContext(nil)
	require.NoError(t, err)
	require.NoError(t, app.UsageForContextWithTemplate(c, 2, kingpin.ManPageTemplate)) // what --help-man runs, into out
	require.True(t, strings.HasPrefix(out.String(), ".TH exporter 1 walab_exporter, version 0.1.0 (revision: abc)\n  build date: x"), "%.120q", out.String())
	return out.String()
}

// TestFixManPage: the title line names the installed command, the
// release's date and version on one line; NAME has a whatis summary; the
// synopsis names the installed command; the flags stay.
func TestFixManPage(t *testing.T) {
	s := Source{Version: "0.1.0", Date: time.Date(2026, 12, 6, 8, 57, 19, 0, time.UTC)}
	got, err := fixManPage(kingpinManPage(t), Programs[0], s)
	require.NoError(t, err)
	lines := strings.Split(string(got), "\n")
	require.Equal(t, `.TH WALAB-EXPORTER 1 "2026-12-06" "walab 0.1.0" "User Commands"`, lines[0])
	require.Equal(t, []string{".ad l", ".nh", `.SH "NAME"`}, lines[1:4])
	require.Equal(t, `walab-exporter \- Prometheus exporter for NVMe write amplification under MySQL`, lines[4])
	require.Contains(t, string(got), "\n\\fBwalab-exporter [<flags>] <command> [<args> ...]\\fR\n")
	require.Contains(t, string(got), `\fB--config.file=CONFIG.FILE\fR`)
	require.NotContains(t, string(got), "build date: x")

	_, err = fixManPage("exporter: unknown flag --help-man\n", Programs[0], s)
	require.ErrorContains(t, err, "did not print a kingpin man page")
}
