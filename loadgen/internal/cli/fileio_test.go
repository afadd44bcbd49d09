package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFileioSeed004CommandLine: seed 004's sysbench 0.4 command lines,
// verbatim but for the size and time, run in the file set's directory as
// sysbench is: prepare, a direct random-read run with one report line a
// second, and cleanup. The output has sysbench fileio's lines.
func TestFileioSeed004CommandLine(t *testing.T) {
	bin := buildLoadgen(t)
	dir := t.TempDir()
	sb := func(args string) string {
		cmd := exec.Command(bin, append(strings.Fields(args), "--web.disable")...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "loadgen %s:\n%s", args, out)
		return string(out)
	}
	sb("--test=fileio --file-num=4 --file-block-size=16384 --file-total-size=64M prepare")
	for i := range 4 {
		fi, err := os.Stat(filepath.Join(dir, "test_file."+string(rune('0'+i))))
		require.NoError(t, err)
		require.Equal(t, int64(16<<20), fi.Size())
	}
	out := sb("--test=fileio --file-num=4 --file-block-size=16384 --file-total-size=64M --file-test-mode=rndrd --file-extra-flags=direct --max-time=3 --max-requests=0 --file-fsync-freq=1 --num-threads=4 --report-interval=1 run")
	t.Log(out)
	for _, want := range []string{"Number of threads: 4", "Extra file open flags: direct", "4 files, 16MiB each", "Block size 16KiB", "Doing random read test",
		"File operations:", "    fsyncs/s:                     0.00", "Throughput:", "    read, MiB/s:"} {
		require.Contains(t, out, want)
	}
	require.Regexp(t, regexp.MustCompile(`\[ 1s \] reads: [0-9.]+ MiB/s writes: 0\.00 MiB/s fsyncs: 0\.00/s latency \(ms,95%\): [0-9.]+`), out)
	sb("--test=fileio --file-num=4 --file-block-size=16384 --file-total-size=64M cleanup")
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, ents)
}

// TestFileioAsync: seed 004's lines with sysbench's async options
// (--file-io-mode=async --file-async-backlog=N, io_uring here): a direct
// random-read run and a random read/write run with an fsync after every
// write, 32 requests in flight per thread. Both move data, say they are
// asynchronous, and their IOPS from throughput equal reads/s and writes/s.
func TestFileioAsync(t *testing.T) {
	bin := buildLoadgen(t)
	dir := t.TempDir()
	sb := func(args string) string {
		cmd := exec.Command(bin, append(strings.Fields(args), "--web.disable")...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "loadgen %s:\n%s", args, out)
		return string(out)
	}
	const set = "--test=fileio --file-num=4 --file-block-size=16384 --file-total-size=64M"
	sb(set + " prepare")
	for _, tc := range []struct{ mode, want string }{
		{"--file-test-mode=rndrd --file-extra-flags=direct", `    reads/s:                      ([0-9.]+)\n`},
		{"--file-test-mode=rndrw --file-fsync-freq=1", `    writes/s:                     ([0-9.]+)\n`},
	} {
		out := sb(set + " " + tc.mode + " --file-io-mode=async --file-async-backlog=32 --max-time=2 --max-requests=0 --num-threads=2 run")
		require.Contains(t, out, "Using asynchronous I/O mode")
		m := regexp.MustCompile(tc.want).FindStringSubmatch(out)
		require.NotNil(t, m, out)
		require.NotEqual(t, "0.00", m[1], "no I/O completed:\n%s", out)
		require.Regexp(t, ` = `+regexp.QuoteMeta(m[1])+` IOPS\n`, out, "MiB/s to IOPS gives the same figure")
		require.NotContains(t, out, "errors:", out)
	}
	sb(set + " cleanup")
}

// TestFileioRawDeviceRefused: --device without the explicit flag, or on a
// mounted disk, stops before anything is opened, with the reason.
func TestFileioRawDeviceRefused(t *testing.T) {
	bin := buildLoadgen(t)
	for _, tc := range []struct{ args, want string }{
		{"fileio --device=/dev/loop7 --file-test-mode=rndwr run", "--i-know-this-destroys-data"},
		{"fileio --device=/dev/null --i-know-this-destroys-data --file-test-mode=rndwr run", "is not a block device"},
	} {
		var stderr bytes.Buffer
		cmd := exec.Command(bin, append(strings.Fields(tc.args), "--web.disable")...)
		cmd.Stderr = &stderr
		err := cmd.Run()
		require.Error(t, err, tc.args)
		require.Contains(t, stderr.String(), tc.want, tc.args)
	}
}
