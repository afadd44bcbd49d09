package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// labPackages are the packages apt-packages.txt marks lab (what make run's
// scripts/setup.sh --lab installs).
func labPackages(t *testing.T) []string {
	b, err := os.ReadFile("../scripts/apt-packages.txt")
	require.NoError(t, err)
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) > 1 && !strings.HasPrefix(f[0], "#") && strings.Contains(" "+strings.Join(f[1:], " ")+" ", " lab ") {
			out = append(out, f[0])
		}
	}
	require.NotEmpty(t, out)
	return out
}

// TestSetupLabTwice: make run's set-up step (scripts/setup.sh --lab) run
// twice: the first installs what is missing (nothing when make test set the
// machine up), the second says so and leaves every lab package as it was
// (dpkg's version and status of each).
func TestSetupLabTwice(t *testing.T) {
	testenv.RequireBinary(t, "dpkg-query")
	if os.Geteuid() != 0 {
		testenv.Missing(t, "scripts/setup.sh installs with apt-get, as root")
	}
	pkgs := labPackages(t)
	state := func() string {
		out, err := exec.Command("dpkg-query", append([]string{"-W", "-f", "${Package} ${Version} ${Status}\n"}, pkgs...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	out, err := exec.Command("bash", "../scripts/setup.sh", "--lab").CombinedOutput()
	require.NoError(t, err, "%s", out)
	before := state()
	require.NotContains(t, before, "not-installed")
	out, err = exec.Command("bash", "../scripts/setup.sh", "--lab").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, "setup: nothing to install\n", string(out))
	require.Equal(t, before, state())
}

// TestSetupWithoutRoot: a package the lab needs is missing and the user is
// not root: setup.sh says so in one line, naming the package and the
// command, and stops (make run then stops before the lab).
func TestSetupWithoutRoot(t *testing.T) {
	setpriv := testenv.RequireBinary(t, "setpriv")
	if os.Geteuid() != 0 {
		testenv.Missing(t, "runs setup.sh as nobody through setpriv, as root")
	}
	dir, err := os.MkdirTemp("", "walab-setup-") // t.TempDir's parent is 0700: nobody could not reach it
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "scripts"), 0o755))
	script, err := os.ReadFile("../scripts/setup.sh")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "scripts", "setup.sh"), script, 0o644))
	list := filepath.Join(dir, "packages.txt")
	require.NoError(t, os.WriteFile(list, []byte("# none installed\nwalab-no-such-package lab\nother-not-for-the-lab\n"), 0o644))
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "bash", filepath.Join(dir, "scripts", "setup.sh"), "--lab")
	cmd.Env = append(os.Environ(), "WALAB_SETUP_PACKAGES="+list)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	require.Error(t, err)
	require.Equal(t, 1, cmd.ProcessState.ExitCode())
	require.Empty(t, stdout.String())
	require.Equal(t, "setup: cannot install walab-no-such-package: apt-get needs root (run: sudo bash scripts/setup.sh --lab)\n", stderr.String())
}
