package fileio

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// TestDescribeMatchesSysbench: the option block loadgen prints before a
// run is sysbench 1.0.20's, line for line, from "Extra file open flags" to
// "Doing ... test", for the fsync and merge options and the random and
// sequential modes. sysbench's "Number of IO requests" line (its --events)
// is the one left out: the workload does not know the run's event limit.
func TestDescribeMatchesSysbench(t *testing.T) {
	sysbench := testenv.RequireBinary(t, "sysbench")
	dir := t.TempDir()
	base := []string{"fileio", "--file-num=2", "--file-total-size=2M", "--file-block-size=16384"}
	prep := exec.Command(sysbench, append(base, "prepare")...)
	prep.Dir = dir
	out, err := prep.CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, c := range []struct {
		args []string
		o    func(*Options)
	}{
		{[]string{"--file-test-mode=rndwr"}, func(*Options) {}},
		{[]string{"--file-test-mode=rndwr", "--file-fsync-all=on"}, func(o *Options) { o.FsyncAll = true }},
		{[]string{"--file-test-mode=rndrw", "--file-fsync-all=on", "--file-fsync-freq=7", "--file-fsync-end=on"}, func(o *Options) { o.FsyncAll, o.FsyncFreq = true, 7 }},
		{[]string{"--file-test-mode=rndrd", "--file-rw-ratio=2"}, func(o *Options) { o.RWRatio = 2 }},
		{[]string{"--file-test-mode=seqrd", "--file-merged-requests=3"}, func(o *Options) { o.MergedRequests = 3 }},
		{[]string{"--file-test-mode=seqwr", "--file-fsync-freq=0", "--file-fsync-end=off"}, func(o *Options) { o.FsyncFreq, o.FsyncEnd = 0, false }},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			cmd := exec.Command(sysbench, append(append(append([]string{}, base...), c.args...), "--events=1", "run")...)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			o := Options{FileNum: 2, BlockSize: 16384, TotalSize: 2 << 20, TestMode: strings.TrimPrefix(c.args[0], "--file-test-mode="),
				IOMode: "sync", FsyncFreq: 100, FsyncEnd: true, FsyncMode: "fsync", RWRatio: 1.5, Dir: t.TempDir()}
			c.o(&o)
			w, err := New(o)
			require.NoError(t, err)
			var ours bytes.Buffer
			w.Describe(&ours)
			require.Equal(t, optionBlock(string(out)), strings.TrimSpace(ours.String()))
		})
	}
}

// optionBlock is sysbench's lines from "Extra file open flags" through
// "Doing ... test", without "Number of IO requests".
func optionBlock(out string) string {
	var keep []string
	on := false
	for _, l := range strings.Split(out, "\n") {
		on = on || strings.HasPrefix(l, "Extra file open flags")
		if on && !strings.HasPrefix(l, "Number of IO requests") && l != "" {
			keep = append(keep, l)
		}
		if strings.HasPrefix(l, "Doing ") {
			break
		}
	}
	return strings.Join(keep, "\n")
}
