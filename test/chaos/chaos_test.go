package chaos

import (
	"os/exec"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

func TestChaosScript(t *testing.T) {
	testenv.RequireBinary(t, "curl")
	cmd := exec.Command("bash", "chaos.sh", "5")
	cmd.Env = append(cmd.Environ(), "CHAOS_PORT="+strconv.Itoa(testenv.FreePort(t)))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, want := range []string{
		"restarts: 5, failed starts: 0, run marks lost: 0, host counter went back: 0, walab_nvme_wa_resets_total: 0",
		"foreign file: unchanged",
		"FIFO: refused", "symlink: refused",
		"source_up while the page fails: 0, up: 1, NAND counter series: 0, WA series: 0",
		"source_up after: 1",
		"cross-origin form post: 403",
		"refused with 429",
	} {
		require.Contains(t, string(out), want)
	}
	require.NotContains(t, string(out), "STARTED (should refuse)")
}
