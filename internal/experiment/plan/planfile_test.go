package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestReadPlanRefusesNonFiles: /dev/zero, a FIFO (no writer: it would
// block) and an oversized file are refused without being read; a plan
// file is read.
func TestReadPlanRefusesNonFiles(t *testing.T) {
	dir := t.TempDir()
	_, err := ReadPlan("/dev/zero")
	require.ErrorContains(t, err, "/dev/zero is a character device: not a regular file")
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, unix.Mkfifo(fifo, 0o600))
	_, err = ReadPlan(fifo)
	require.ErrorContains(t, err, "is a FIFO: not a regular file")
	big := filepath.Join(dir, "big.yml")
	require.NoError(t, os.WriteFile(big, []byte(strings.Repeat("#\n", maxPlanBytes)), 0o600))
	_, err = ReadPlan(big)
	require.ErrorContains(t, err, "larger than 1048576")
	ok := filepath.Join(dir, "ok.yml")
	require.NoError(t, os.WriteFile(ok, []byte("name: x\n"), 0o600))
	b, err := ReadPlan(ok)
	require.NoError(t, err)
	require.Equal(t, "name: x\n", string(b))
}

// TestPlanDurationBounds: a duration of more than 30 days is refused at
// its line.
func TestPlanDurationBounds(t *testing.T) {
	_, err := Parse([]byte("name: d\nround: 721h\nruns:\n  - {name: r, command: 'true', repeat: 1}\n  - {name: s, workload: tpcc, targets: [db], duration: 2562047h}\ntargets: [{name: db, dsn: 'root@tcp(h:1)/x'}]\n"))
	require.ErrorContains(t, err, "line 2: round: duration 721h is longer than 30 days (720h0m0s)")
	require.ErrorContains(t, err, "duration 2562047h is longer than 30 days")
	_, err = Parse([]byte("name: d\nround: 720h\nruns: [{name: r, command: 'true'}]\n"))
	require.NoError(t, err)
}
