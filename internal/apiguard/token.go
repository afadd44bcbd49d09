package apiguard

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
)

// TokenHeader carries the token of the exporter's token file
// (TokenFileFlag) on a state-changing request. The cross-origin header
// stops browsers; the token stops the host's other local users, who
// cannot read the file (0600, the exporter's user's).
const (
	TokenHeader   = "X-Walab-Token"
	TokenFileFlag = "--web.mutations-token-file"
)

var tokenLine = regexp.MustCompile(`^[0-9a-f]{64}\n$`)

// WriteTokenFile writes a new random token to path, mode 0600, and
// returns it. It replaces only a token file of its own (a regular file
// holding one token line, from an earlier start); anything else at path
// (a symlink, a FIFO, another file) is refused and left as it was.
func WriteTokenFile(path string) (string, error) {
	if st, err := os.Lstat(path); err == nil {
		if !st.Mode().IsRegular() || st.Size() != 65 {
			return "", fmt.Errorf("%s: not a walab token file (%s, %d bytes); refusing to replace it", path, st.Mode().Type(), st.Size())
		}
		b, err := os.ReadFile(path)
		if err != nil || !tokenLine.Match(b) {
			return "", fmt.Errorf("%s: not a walab token file; refusing to replace it", path)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	token := hex.EncodeToString(raw)
	tmp, err := os.CreateTemp(filepath.Dir(path), ".walab-token-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(token + "\n"); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", err
	}
	return token, nil
}

// tokenOK reports whether r carries the guard's token (always, without one).
func (g *Guard) tokenOK(r interface{ Get(string) string }) bool {
	if g.token == "" {
		return true
	}
	return subtle.ConstantTimeCompare([]byte(r.Get(TokenHeader)), []byte(g.token)) == 1
}
