package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/promql"
	"github.com/walab/walab/internal/testenv"
)

// TestLabSimFS runs `walab lab --simfs`: the simulated drive under the
// exporter's FUSE filesystem and a private mariadbd with its datadir there,
// so the verdict's WA comes from MariaDB's own writes (issue 45). The lab
// says so; while it holds, the drive's host bytes are exactly the pages the
// filesystem sent (the sum of walab_simfs_host_written_bytes_total: no
// other writer), at least the bytes MariaDB wrote through it and at most
// two 4 KiB pages more per write call; Ctrl-C leaves no process and no
// mount behind.
func TestLabSimFS(t *testing.T) {
	testenv.RequireFUSE(t)
	prom := testenv.RequireBinary(t, "prometheus")
	for _, b := range []string{"mariadb", "mariadb-dump", "curl", "mariadb-install-db"} {
		testenv.RequireBinary(t, b)
	}
	dir := t.TempDir()
	bins := map[string]string{}
	for _, b := range []string{"exporter", "loadgen"} {
		bins[b] = filepath.Join(dir, "bin", b)
		out, err := exec.Command("go", "build", "-o", bins[b], "../"+b).CombinedOutput()
		require.NoError(t, err, "go build ./%s: %s", b, out)
	}
	port := func() string { return "127.0.0.1:" + strconv.Itoa(testenv.FreePort(t)) }
	exporter := port()
	lab := startLab(t, []string{"lab", "--simfs", "--out=" + filepath.Join(dir, "lab"), "--plan=../deploy/experiments/seed000-sim.yml",
		"--exporter.bin=" + bins["exporter"], "--loadgen.bin=" + bins["loadgen"], "--prometheus.bin=" + prom,
		"--exporter.listen=" + exporter, "--prometheus.listen=" + port(), "--loadgen.listen=" + port(),
		"--run=90s", "--round=10s", "--progress=10s"})
	out := lab.waitFor(t, "up for exploring", 12*time.Minute)
	verdict := regexp.MustCompile(`(?m)^(NOT )?VALID  WA .*$`).FindString(out)
	require.NotEmpty(t, verdict, out)
	t.Logf("verdict on MariaDB's own writes: %s", verdict)
	require.Contains(t, out, "WA source:         MariaDB's own writes")

	// mariadbd idles but its page cleaner may still write: take the
	// metrics between two equal reads of the drive's state.
	var written, host, calls float64
	var driveHost uint64
	for try := 0; ; try++ {
		before := driveHostBytes(t, exporter)
		written, host, calls = simfsTotals(t, exporter)
		if driveHost = driveHostBytes(t, exporter); driveHost == before || try == 50 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("through the filesystem: %.0f bytes written in %.0f calls; drive host bytes %d (pages %.0f)", written, calls, driveHost, host)
	require.Positive(t, written)
	require.Equal(t, uint64(host), driveHost, "the drive's host bytes are the filesystem's pages")
	require.GreaterOrEqual(t, host, written)
	require.LessOrEqual(t, host, written+2*4096*calls)

	require.Contains(t, []int{0, 3}, lab.stop(t), lab.out.String())
	requireNoProcess(t, dir)
	mounts, err := os.ReadFile("/proc/mounts")
	require.NoError(t, err)
	require.NotContains(t, string(mounts), dir, "the lab's mount is gone")
}

// driveHostBytes is the simulated drive's host bytes (its state endpoint).
func driveHostBytes(t *testing.T, exporter string) uint64 {
	var state struct {
		Host uint64 `json:"host_written_bytes"`
	}
	resp, err := http.Get("http://" + exporter + "/api/v1/sim/placement")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&state))
	return state.Host
}

// simfsTotals sums walab_simfs_{written_bytes,host_written_bytes,writes}_total over the classes.
func simfsTotals(t *testing.T, exporter string) (written, host, calls float64) {
	resp, err := http.Get("http://" + exporter + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	line := regexp.MustCompile(`(?m)^(walab_simfs_\w+)\{[^}]*\} (\S+)$`)
	for _, m := range line.FindAllStringSubmatch(string(body), -1) {
		v, err := strconv.ParseFloat(m[2], 64)
		require.NoError(t, err)
		switch m[1] {
		case promql.SimFSWrittenBytes:
			written += v
		case promql.SimFSHostWrittenBytes:
			host += v
		case promql.SimFSWrites:
			calls += v
		}
	}
	require.True(t, strings.Contains(string(body), promql.SimFSServing), "the exporter serves the filesystem's metrics")
	return written, host, calls
}
