package apiguard

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// TestTokenRequired: with a token file, a state-changing request must
// present the token the exporter wrote there (0600, its user's alone);
// the other checks still apply. Before, any local user could POST.
func TestTokenRequired(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o755)) // the file's mode, not the directory, keeps others out
	path := filepath.Join(dir, "exporter.token")
	token, err := WriteTokenFile(path)
	require.NoError(t, err)
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	require.Regexp(t, `^[0-9a-f]{64}$`, token)
	srv, n := server(t, Options{Enabled: true, Token: token})
	hdr := map[string]string{Header: HeaderValue}
	code, body := do(t, http.MethodPost, srv.URL, hdr, nil)
	require.Equal(t, http.StatusForbidden, code)
	require.Contains(t, body, TokenHeader)
	hdr[TokenHeader] = strings.Repeat("0", 64)
	code, _ = do(t, http.MethodPost, srv.URL, hdr, nil)
	require.Equal(t, http.StatusForbidden, code, "a wrong token")
	hdr[TokenHeader] = token
	code, _ = do(t, http.MethodPost, srv.URL, hdr, nil)
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, int64(1), n.Load())
	delete(hdr, Header)
	code, _ = do(t, http.MethodPost, srv.URL, hdr, nil)
	require.Equal(t, http.StatusForbidden, code, "the token does not replace the cross-origin header")
	code, _ = do(t, http.MethodGet, srv.URL, nil, nil)
	require.Equal(t, http.StatusOK, code, "reads need no token")

	// Another local user reads no token and is refused.
	if os.Geteuid() == 0 {
		testenv.RequireBinary(t, "setpriv")
		testenv.RequireBinary(t, "curl")
		sh := `cat "$1"; curl -s -o /dev/null -w '%{http_code}' -X POST -H 'X-Walab-Request: 1' -H "X-Walab-Token: $(cat "$1" 2>/dev/null)" "$2"`
		out, _ := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "sh", "-c", sh, "sh", path, srv.URL).CombinedOutput()
		require.Contains(t, string(out), "Permission denied")
		require.True(t, strings.HasSuffix(string(out), "403"), "%s", out)
		require.Equal(t, int64(1), n.Load())
	}
}

// TestTokenFileNotOurs: the token file replaces only walab's own token
// file; anything else at its path (a symlink, a FIFO, another file) is
// refused and left as it was.
func TestTokenFileNotOurs(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "exporter.token")
	first, err := WriteTokenFile(path)
	require.NoError(t, err)
	second, err := WriteTokenFile(path)
	require.NoError(t, err, "its own file from an earlier start is replaced")
	require.NotEqual(t, first, second)
	other := filepath.Join(dir, "other")
	require.NoError(t, os.WriteFile(other, []byte("precious\n"), 0o644))
	_, err = WriteTokenFile(other)
	require.ErrorContains(t, err, "not a walab token file")
	b, _ := os.ReadFile(other)
	require.Equal(t, "precious\n", string(b))
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(other, link))
	_, err = WriteTokenFile(link)
	require.ErrorContains(t, err, "not a walab token file")
	_, err = WriteTokenFile(filepath.Join(dir, "missing", "t"))
	require.Error(t, err)
}
