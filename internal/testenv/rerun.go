package testenv

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// rerunEnv marks the test binary run again by RerunAs.
const rerunEnv = "WALAB_TEST_RERUN"

// Rerun is the argument RerunAs gave this process when it is the test
// run again (its half runs as the other user), "" otherwise.
func Rerun(t testing.TB) string {
	v, ok := strings.CutPrefix(os.Getenv(rerunEnv), t.Name()+"=")
	if !ok {
		return ""
	}
	return v
}

// RerunAs runs the current test again through setpriv with the given
// options (--reuid=..., --inh-caps=..., ...), from a copy of the test
// binary that any user may run; in it Rerun returns arg. It needs root and
// setpriv (missing otherwise), fails unless that run passed, not skipped,
// and returns its output.
func RerunAs(t *testing.T, arg string, setpriv ...string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		Missing(t, "root, to run the test as another user")
	}
	bin := RequireBinary(t, "setpriv")
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o755))
	self, err := os.Open(os.Args[0])
	require.NoError(t, err)
	defer self.Close()
	exe := filepath.Join(dir, "test.bin")
	out, err := os.OpenFile(exe, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(out, self)
	require.NoError(t, err)
	require.NoError(t, out.Close())
	args := append(append([]string(nil), setpriv...), "--", exe, "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), rerunEnv+"="+t.Name()+"="+arg)
	b, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(b), "--- PASS: "+t.Name()) || strings.Contains(string(b), "--- SKIP") {
		t.Fatalf("%s as %v: %v\n%s", t.Name(), setpriv, err, b)
	}
	return string(b)
}
