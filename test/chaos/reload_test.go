package chaos

import (
	"os/exec"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// TestReloadScript runs test/chaos/reload.sh: the SIGHUP reload attacks
// (empty file, truncated mid-write, FIFO), DNS rebinding and a NAND page
// emptied and half-written mid-run (issue 33 items 5, 7, 11), and a
// reload back to a file without the restart-only section an earlier one
// added (issue 42 item 13).
func TestReloadScript(t *testing.T) {
	testenv.RequireBinary(t, "curl")
	cmd := exec.Command("bash", "reload.sh")
	cmd.Env = append(cmd.Environ(), "CHAOS_PORT="+strconv.Itoa(testenv.FreePort(t)))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, want := range []string{
		"placement starts: true",
		"empty file: placement true, refusals 1",
		"truncated mid-write: placement true, refusals 2",
		"FIFO: placement true, refusals 3",
		"good file after the attacks: placement false",
		"changed innodb section: 1 restart-only line",
		"back to the file without innodb: placement true, refusals 3",
		"run-start with Host evil.example: 403",
		"run-start with Host 127.0.0.1: 200",
		"emptied page: source_up 0",
		"half-written page: source_up 0",
		"page back: source_up 1, resets 0, run mark moved: no",
	} {
		require.Contains(t, string(out), want)
	}
}
