package mycnf

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
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
		// The mysql client's option-file rules: an inline '#' ends a plain
		// value (the password is "abc", not "abc # old"), quotes keep it.
		{"inline comment", "[client] # the client group\nuser=u # who\npassword=abc # old\n", Client{User: "u", Password: "abc"}, "127.0.0.1:3306", ""},
		{"quoted hash", "[client]\npassword=\"a#b\" # comment\n", Client{Password: "a#b"}, "127.0.0.1:3306", ""},
		{"escapes", "[client]\npassword=a\\sb\\\\c\nuser='x\\ty'\n", Client{Password: "a b\\c", User: "x\ty"}, "127.0.0.1:3306", ""},
		{"boolean option", "[client]\nskip-ssl\nuser=u\n", Client{User: "u"}, "127.0.0.1:3306", ""},
		{"underscore name", "[client]\nUSER=u\n", Client{User: "u"}, "127.0.0.1:3306", ""},
		{"garbage line", "[client]\nuser=u\n%%% nonsense\n", Client{}, "", "line 3: not an option, a group or a directive"},
		// Issue 33: a malformed line was echoed, password included.
		{"password without =", "[client]\npassword hunter2\n", Client{}, "", "line 2: option \"password\" followed by text without '='"},
		// Issue 33: a file without [client] logged in as ''@.
		{"no client group", "[mysqld]\nuser=mysql\n", Client{}, "", "no [client] group"},
		{"empty file", "", Client{}, "", "no [client] group"},
		{"unclosed quote", "[client]\npassword=\"abc\n", Client{}, "", "line 2: unclosed \" quote"},
		{"text after quotes", "[client]\npassword=\"abc\" def\n", Client{}, "", "text after the quoted value"},
		{"include without a path", "!include other.cnf\n", Client{}, "", "needs the file's path"},
		{"unknown directive", "!frobnicate x\n", Client{}, "", "unknown directive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(strings.NewReader(tc.in))
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				for _, secret := range []string{"hunter2", "def", "nonsense"} {
					require.NotContains(t, err.Error(), secret, "the line is never echoed")
				}
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, c)
			require.Equal(t, tc.addr, c.Config().Addr)
		})
	}
}

// TestParseFileIncludes: !include and !includedir are followed from
// the including file's folder, in order (later keys win), a cycle stops at
// the depth limit, and a FIFO is refused instead of hanging.
func TestParseFileIncludes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
		return p
	}
	write("conf.d/10-user.cnf", "[client]\nuser=from_dir\n")
	write("conf.d/20-port.cnf", "[client]\nport=3310\n")
	write("conf.d/ignored.txt", "[client]\nuser=never\n")
	write("secret.cnf", "[client]\npassword=\"p#ss\"\n")
	main := write("my.cnf", "[client]\nuser=first\n!includedir conf.d\n!include secret.cnf\nhost=127.0.0.2\n")
	c, err := ParseFile(main)
	require.NoError(t, err)
	require.Equal(t, Client{User: "from_dir", Password: "p#ss", Host: "127.0.0.2", Port: 3310}, c)

	loop := write("loop.cnf", "[client]\n!include loop.cnf\n")
	_, err = ParseFile(loop)
	require.ErrorContains(t, err, "nested more than 10 deep")

	fifo := filepath.Join(dir, "fifo.cnf")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	inc := write("with-fifo.cnf", "!include fifo.cnf\n")
	_, err = ParseFile(inc)
	require.ErrorContains(t, err, "not a regular file")
}

func FuzzParse(f *testing.F) {
	f.Add("[client]\nuser=a\nport=1\n")
	f.Add("[client]\nhost=\"::1\"\nsocket='/tmp/s'\n")
	f.Add("[client] # c\npassword=\"a#b\\\"c\" # x\nskip-ssl\nuser=a\\sb # y\n")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Parse(strings.NewReader(s))
		if err == nil && (c.Port < 0 || c.Port > 65535) {
			t.Fatalf("port %d accepted", c.Port)
		}
	})
}
