//go:build linux

package wa

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

const asNobodyEnv = "WALAB_WA_TEST_AS_NOBODY"

// TestAtomicWriteUnwritableDirectory: the state directory loses its write
// permission; the save fails and the old file stays.
func TestAtomicWriteUnwritableDirectory(t *testing.T) {
	if rerunAsNobody(t) {
		return
	}
	require.NotZero(t, os.Geteuid(), "must not run as root here")
	dir := t.TempDir()
	path := filepath.Join(dir, "wa.state")
	require.NoError(t, atomicWriter{}.write(path, []byte("old state")))
	require.NoError(t, os.Chmod(dir, 0o555))
	t.Cleanup(func() { os.Chmod(dir, 0o755) })

	err := atomicWriter{}.write(path, []byte("new state"))
	require.ErrorIs(t, err, os.ErrPermission)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "old state", string(b))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temp file left behind")
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	require.NoError(t, err)
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(out, in)
	require.NoError(t, err)
	require.NoError(t, out.Close())
}

// rerunAsNobody: root ignores directory permissions, so as root the test
// binary reruns the calling test as nobody (uid 65534) and reports true
// (the caller returns: the rerun has done the work and passed).
func rerunAsNobody(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 || os.Getenv(asNobodyEnv) != "" {
		return false
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	// t.TempDir's parent is 0700 too; nobody needs to reach the copy.
	require.NoError(t, os.Chmod(filepath.Dir(dir), 0o755))
	require.NoError(t, os.Chmod(dir, 0o755))
	copyBin := filepath.Join(dir, "wa.test")
	copyFile(t, exe, copyBin)
	cmd := exec.Command(copyBin, "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), asNobodyEnv+"=1", "TMPDIR=/tmp")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "rerun as nobody:\n%s", out)
	require.Contains(t, string(out), "--- PASS: "+t.Name(), string(out))
	return true
}

// TestRunStartOnReadOnlyStateDir: a run mark that cannot be persisted is
// not a 200 (it used to be, and the mark was gone after a restart). The
// mark still holds in memory and the answer says so.
func TestRunStartOnReadOnlyStateDir(t *testing.T) {
	if rerunAsNobody(t) {
		return
	}
	require.NotZero(t, os.Geteuid(), "must not run as root here")
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o555))
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	r := &fakeReader{}
	s, logs := newTestSampler(t, r, Options{StatePath: filepath.Join(dir, "wa.state")})
	require.Contains(t, logs.String(), "not writable; running without the state-file lock")
	r.set("nvme0", 1, 2)

	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, RunStartPath, nil))
	require.Equal(t, http.StatusInternalServerError, rec.Code, rec.Body.String())
	var body errorResponse
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
	require.Contains(t, body.Error, "not persisted (a restart loses it)")
	require.Contains(t, body.Error, "permission denied")
	require.Len(t, body.Marks, 1)
	require.Equal(t, s.Marks(), body.Marks, "the mark holds in memory")
	v, _ := metricValue(t, s, "walab_nvme_wa_state_save_errors_total")
	require.Equal(t, 1.0, v)
}
