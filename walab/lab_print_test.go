package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// TestLabPrintExporter: `walab lab --print-exporter` writes the lab's
// configuration into a new directory and prints the exporter's command
// line as the lab runs it (the simulated drive's config, an empty sysfs,
// the collectors it turns off, the MariaDB data directory it watches: by
// default the drive under its filesystem and the private server's datadir
// there, with --no-simfs the synthetic mix and the local MariaDB's); it
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
	require.Contains(t, string(cfg), "capacity: 640MiB", "the default: the drive under MariaDB's own writes")
	require.Contains(t, string(cfg), "discard: true", "TRIM on: the reset writes back the files' pages, purges free theirs")
	require.Contains(t, string(cfg), fmt.Sprintf("  data_dirs: [%q]\n", filepath.Join(dir, "simfs", "mnt", "data")))
	require.DirExists(t, filepath.Join(dir, "empty"))

	synth := filepath.Join(t.TempDir(), "lab")
	out.Reset()
	require.Equal(t, 0, run([]string{"lab", "--print-exporter", "--no-simfs", "--out", synth, "--exporter.bin=/bin/true"}, &out, &errOut), errOut.String())
	cfg, err = os.ReadFile(filepath.Join(synth, "exporter.yml"))
	require.NoError(t, err)
	require.Contains(t, string(cfg), "capacity: 256MiB", "--no-simfs: the synthetic mix")
	require.NotContains(t, string(cfg), "fs:")
	require.Regexp(t, `(?m)^  data_dirs: \["/[^"]*"\]$`, string(cfg))

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
		{"--mysql.port-1=3307"}, // a server of --no-simfs, given to the default lab
	} {
		var out, errOut bytes.Buffer
		code := run(append([]string{"lab", "--out", filepath.Join(t.TempDir(), "lab"), "--exporter.bin=/bin/true",
			"--loadgen.bin=/bin/true", "--prometheus.bin=/bin/true"}, args...), &out, &errOut)
		require.Equal(t, 2, code, "%v: %s", args, errOut.String())
		require.NotEmpty(t, errOut.String())
	}
}

// TestLabRefusesSimFSWithoutRoot: the default lab mounts a FUSE
// filesystem; without root it refuses to start (exit 2), names
// --no-simfs, and does not fall back to the synthetic mix. As root the
// test binary reruns this test as nobody.
func TestLabRefusesSimFSWithoutRoot(t *testing.T) {
	if os.Geteuid() == 0 {
		exe, err := os.Executable()
		require.NoError(t, err)
		dir := t.TempDir()
		require.NoError(t, os.Chmod(filepath.Dir(dir), 0o755)) // t.TempDir's parent is 0700 too
		require.NoError(t, os.Chmod(dir, 0o755))
		bin, err := os.ReadFile(exe)
		require.NoError(t, err)
		copyBin := filepath.Join(dir, "walab.test")
		require.NoError(t, os.WriteFile(copyBin, bin, 0o755))
		cmd := exec.Command(copyBin, "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "TMPDIR=/tmp")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "rerun as nobody:\n%s", out)
		require.Contains(t, string(out), "--- PASS: "+t.Name(), string(out))
		return
	}
	var out, errOut bytes.Buffer
	// A plan that exists (the rerun's directory has no source tree), so
	// that the refusal is the root one, not "no plan".
	plan := filepath.Join(t.TempDir(), "plan.yml")
	require.NoError(t, os.WriteFile(plan, []byte("name: x\n"), 0o644))
	code := run([]string{"lab", "--out", filepath.Join(t.TempDir(), "lab"), "--exporter.bin=/bin/true",
		"--loadgen.bin=/bin/true", "--prometheus.bin=/bin/true", "--plan=" + plan}, &out, &errOut)
	require.Equal(t, 2, code, errOut.String())
	require.Contains(t, errOut.String(), "mounts a FUSE filesystem: run as root; --no-simfs runs the drive's synthetic MySQL-like mix instead")
	require.NotContains(t, out.String(), "starting")
}
