package experiment

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSeedPlansPrepareFailsOnFirstInstance runs the shipped seed 000 plans'
// prepare loop (CREATE DATABASE per instance) under sh with a mariadb that
// fails for the first instance only: the step must fail, not return the
// last instance's status (issue 42, low).
func TestSeedPlansPrepareFailsOnFirstInstance(t *testing.T) {
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "mariadb"),
		[]byte("#!/bin/sh\ncase \"$*\" in *walab_seed000_1*) echo 'ERROR 1044 (42000): Access denied' >&2; exit 1;; esac\n"), 0o755))
	for _, name := range []string{"seed000-sim.yml", "seed000-two-hosts.yml"} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "deploy", "experiments", name))
		require.NoError(t, err)
		p, err := ParseEnv(raw, func(string) (string, bool) { return "", false })
		require.NoError(t, err, name)
		var loop string
		for _, s := range p.Prepare {
			if strings.Contains(s.Command, "CREATE DATABASE") {
				loop = s.Command
			}
		}
		require.NotEmpty(t, loop, "%s has a CREATE DATABASE step", name)
		cmd := exec.Command("/bin/sh", "-c", loop)
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		require.Error(t, err, "%s: the loop exits non-zero when instance 1 fails: %s", name, out)
		require.Contains(t, string(out), "Access denied")
	}
}
