package innodb

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseMyCnf(t *testing.T) {
	tests := []struct {
		name, in string
		want     Client
		addr     string
		err      string
	}{
		{"client section", "[mysqld]\nport=9999\n[client]\nuser = walab\npassword=\"s3cr=t\"\nhost=127.0.0.1\nport=3307\n", Client{User: "walab", Password: "s3cr=t", Host: "127.0.0.1", Port: 3307}, "127.0.0.1:3307", ""},
		{"defaults", "[client]\nuser=root\n", Client{User: "root"}, "127.0.0.1:3306", ""},
		{"socket", "[client]\nsocket=/run/mysqld/mysqld.sock\n", Client{Socket: "/run/mysqld/mysqld.sock"}, "/run/mysqld/mysqld.sock", ""},
		{"ipv6", "[client]\nhost=::1\n", Client{Host: "::1"}, "[::1]:3306", ""},
		{"bad port", "[client]\nport=abc\n", Client{}, "", "line 2: port"},
		{"bad header", "[client\n", Client{}, "", "unclosed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseMyCnf(strings.NewReader(tc.in))
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, c)
			require.Equal(t, tc.addr, c.Config().Addr)
		})
	}
}

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

func FuzzParseMyCnf(f *testing.F) {
	f.Add("[client]\nuser=a\nport=1\n")
	f.Add("[client]\nhost=\"::1\"\nsocket='/tmp/s'\n")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseMyCnf(strings.NewReader(s))
		if err == nil && (c.Port < 0 || c.Port > 65535) {
			t.Fatalf("port %d accepted", c.Port)
		}
	})
}
