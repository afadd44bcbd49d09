package innodb

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestResolveNeverLeaksPassword(t *testing.T) {
	_, err := TargetConfig{Name: "a", DSN: "walab:hunter2@tcp(127.0.0.1:3306)/?bogus=%zz"}.Resolve()
	require.Error(t, err)
	require.NotContains(t, err.Error(), "hunter2")
	_, err = TargetConfig{Name: "a"}.Resolve()
	require.ErrorContains(t, err, "exactly one of")
	_, err = TargetConfig{DSN: "x"}.Resolve()
	require.ErrorContains(t, err, "name is required")
	p := filepath.Join(t.TempDir(), "my.cnf")
	require.NoError(t, os.WriteFile(p, []byte("[client]\nuser=u\npassword=hunter2\nport=3307\n"), 0o600))
	cfg, err := TargetConfig{Name: "b", MyCnf: p}.Resolve()
	require.NoError(t, err)
	require.Equal(t, "u", cfg.User)
	require.Equal(t, "127.0.0.1:3307", cfg.Addr)
	require.Equal(t, DefaultTimeout, cfg.ReadTimeout)
}
