package mycnf

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBareWordInClientGroup: a bare word in [client] is an option without
// a value for MySQL (--word), and the client refuses one it does not know;
// a password on its own line (its "password=" lost) must not pass for a
// boolean option (issue 42, low). The line is not shown.
func TestBareWordInClientGroup(t *testing.T) {
	_, err := Parse(strings.NewReader("[client]\nuser=root\nhunter2\n"))
	require.ErrorContains(t, err, "line 3")
	require.NotContains(t, err.Error(), "hunter2")
	c, err := Parse(strings.NewReader("[client]\nuser=root\ncompress\nskip-ssl\nloose-foo\npassword\n[mysqld]\nskip-name-resolve\nbarewordelsewhere\n"))
	require.NoError(t, err, "known booleans, prefixed options, other groups")
	require.Equal(t, "root", c.User)
}
