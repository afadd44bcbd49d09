package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// TestLabPrintExporter: `walab lab --print-exporter` writes the lab's
// configuration into a new directory and prints the exporter's command
// line as the lab runs it (the simulated drive's config, an empty sysfs,
// the collectors it turns off, the MariaDB data directory it watches); it
// starts nothing, and a directory that is
// not empty is refused with its files left as they were.
func TestLabPrintExporter(t *testing.T) {
	_, _ = testenv.MariaDB(t, "") // the lab's exporter watches its @@datadir
	dir := filepath.Join(t.TempDir(), "lab")
	var out, errOut bytes.Buffer
	code := run([]string{"lab", "--print-exporter", "--out", dir, "--exporter.bin=/bin/true", "--exporter.listen=127.0.0.1:19131"}, &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	args := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Equal(t, "/bin/true", args[0])
	require.Contains(t, args, "--config.file="+filepath.Join(dir, "exporter.yml"))
	require.Contains(t, args, "--web.listen-address=127.0.0.1:19131")
	require.Contains(t, args, "--path.sysfs="+filepath.Join(dir, "empty"))
	require.Contains(t, args, "--no-collector.irq")
	cfg, err := os.ReadFile(filepath.Join(dir, "exporter.yml"))
	require.NoError(t, err)
	require.Contains(t, string(cfg), "capacity: 256MiB")
	require.Regexp(t, `(?m)^  data_dirs: \["/[^"]*"\]$`, string(cfg))
	require.DirExists(t, filepath.Join(dir, "empty"))

	// A second call finds the directory not empty: refused, nothing rewritten.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "exporter.yml"), []byte("mine\n"), 0o644))
	out.Reset()
	errOut.Reset()
	require.Equal(t, 1, run([]string{"lab", "--print-exporter", "--out", dir, "--exporter.bin=/bin/true"}, &out, &errOut))
	require.Contains(t, errOut.String(), "is not empty")
	require.Empty(t, out.String())
	cfg, err = os.ReadFile(filepath.Join(dir, "exporter.yml"))
	require.NoError(t, err)
	require.Equal(t, "mine\n", string(cfg))

	errOut.Reset()
	require.Equal(t, 2, run([]string{"lab", "--print-exporter", "--out", t.TempDir(), "--exporter.bin=/bin/true", "--exporter.listen=10.0.0.1:1"}, &out, &errOut))
	require.Contains(t, errOut.String(), "exporter address")
}

// TestLabUsageErrors: values the lab refuses before it starts anything are
// usage errors, exit 2 like every other walab command's (they were 1).
func TestLabUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--exporter.listen=10.0.0.1:1"},
		{"--prometheus.listen=nohost"},
		{"--run=20s", "--round=10s"},
		{"--mysql.db-1=same", "--mysql.db-2=same"},
		{"--plan=/dev/zero"},
	} {
		var out, errOut bytes.Buffer
		code := run(append([]string{"lab", "--out", filepath.Join(t.TempDir(), "lab"), "--exporter.bin=/bin/true",
			"--loadgen.bin=/bin/true", "--prometheus.bin=/bin/true"}, args...), &out, &errOut)
		require.Equal(t, 2, code, "%v: %s", args, errOut.String())
		require.NotEmpty(t, errOut.String())
	}
}
