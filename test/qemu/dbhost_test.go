//go:build linux

package qemu

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestQEMUDBHost: the database host boots with the host's /usr, answers
// ssh with the run's key under its own hostname, sees the FDP drive's two
// namespaces through the stock nvme driver, runs this machine's mariadbd
// and numactl, and its exporter, reached through the forwarded loopback
// port, reads the controller through the ioctl path with FDP as its NAND
// source.
func TestQEMUDBHost(t *testing.T) {
	if testing.Short() {
		t.Skip("boots a VM")
	}
	h := StartDBHost(t, BuildStatic(t, t.TempDir(), "exporter", "../../exporter"), t.TempDir())
	require.Equal(t, DBHostName+"\n", h.Run(t, "hostname"))
	require.Equal(t, "walabdb01", strings.TrimSpace(h.Run(t, "cat /sys/class/nvme/nvme0/serial")), "Identify pads the serial with spaces")
	require.Equal(t, "nvme0n1\nnvme0n2\n", h.Run(t, "ls /dev | grep '^nvme0n'"))
	require.Contains(t, h.Run(t, "mariadbd --version"), "MariaDB")
	require.Contains(t, h.Run(t, "numactl -C 0 -i 0 cat /proc/self/status | grep Cpus_allowed_list"), "\t0\n")
	resp, err := http.Get(h.ExporterURL() + "/metrics")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Regexp(t, `walab_nvme_info\{device="nvme0",[^}]*serial="walabdb01"[^}]*source="fdp"[^}]*\} 1`, string(body))
	require.Contains(t, string(body), `walab_nvme_fdp_enabled{device="nvme0"} 1`)
}
