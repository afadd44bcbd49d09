package driver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"
)

func TestClassify(t *testing.T) {
	my := func(n uint16) error { return &mysql.MySQLError{Number: n, Message: "x"} }
	for _, tc := range []struct {
		name string
		err  error
		want Class
	}{
		{"nil", nil, OK},
		{"deadlock", my(1213), Deadlock},
		{"wrapped deadlock", fmt.Errorf("point select: %w", my(1213)), Deadlock},
		{"lock wait", my(1205), LockWait},
		{"server shutdown", my(1053), Connection},
		{"connection killed", my(1927), Connection},
		{"query interrupted", my(1317), Connection},
		{"gone away", my(2006), Connection},
		{"lost", my(2013), Connection},
		{"duplicate key", my(1062), Other},
		{"bad conn", driver.ErrBadConn, Connection},
		{"invalid conn", mysql.ErrInvalidConn, Connection},
		{"eof", io.EOF, Connection},
		{"unexpected eof", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), Connection},
		{"reset", &net.OpError{Op: "read", Err: syscall.ECONNRESET}, Connection},
		{"refused", fmt.Errorf("dial: %w", syscall.ECONNREFUSED), Connection},
		{"closed conn", fmt.Errorf("x: %w", sql.ErrConnDone), Connection},
		{"canceled", context.Canceled, Canceled},
		{"deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), Canceled},
		{"plain", errors.New("boom"), Other},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Classify(tc.err))
		})
	}
	require.True(t, Deadlock.Retryable())
	require.True(t, LockWait.Retryable())
	require.False(t, Connection.Retryable())
	require.Equal(t, 1213, Code(fmt.Errorf("w: %w", my(1213))))
	require.Equal(t, 0, Code(io.EOF))
}

func TestConnDSN(t *testing.T) {
	for _, tc := range []struct {
		name    string
		c       Conn
		want    string
		wantErr string
	}{
		{"tcp", Conn{Host: "127.0.0.1", Port: 3307, User: "root", DB: "sbtest"},
			"root@tcp(127.0.0.1:3307)/sbtest?readTimeout=1m0s&timeout=5s&writeTimeout=1m0s", ""},
		{"localhost becomes loopback", Conn{Host: "localhost", Port: 3306, User: "sb", Password: "p w", DB: "d"},
			"sb:p w@tcp(127.0.0.1:3306)/d?readTimeout=1m0s&timeout=5s&writeTimeout=1m0s", ""},
		{"ipv6", Conn{Host: "::1", Port: 3306, User: "u"},
			"u@tcp([::1]:3306)/?readTimeout=1m0s&timeout=5s&writeTimeout=1m0s", ""},
		{"socket", Conn{Socket: "/run/mysqld/mysqld.sock", User: "u"},
			"u@unix(/run/mysqld/mysqld.sock)/?readTimeout=1m0s&timeout=5s&writeTimeout=1m0s", ""},
		{"no user", Conn{Host: "127.0.0.1", Port: 1}, "", "user is empty"},
		{"bad port", Conn{Host: "127.0.0.1", Port: 70000, User: "u"}, "", "out of range"},
		{"no host", Conn{Port: 3306, User: "u"}, "", "host is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.c.DSN()
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Target
		wantErr string
	}{
		{"a=root@tcp(127.0.0.1:3306)/tpcc", Target{Name: "a", DSN: "root@tcp(127.0.0.1:3306)/tpcc?readTimeout=1m0s&timeout=5s&writeTimeout=1m0s"}, ""},
		{"b=mysql://u:pw@127.0.0.1:3307/tpcc", Target{Name: "b", DSN: "u:pw@tcp(127.0.0.1:3307)/tpcc?readTimeout=1m0s&timeout=5s&writeTimeout=1m0s"}, ""},
		{"b=mysql://127.0.0.1/x?parseTime=true", Target{Name: "b", DSN: "root@tcp(127.0.0.1:3306)/x?parseTime=true&readTimeout=1m0s&timeout=5s&writeTimeout=1m0s"}, ""},
		{"inst2=/etc/walab/props.3307.conf", Target{Name: "inst2", Props: "/etc/walab/props.3307.conf"}, ""},
		{"nodsn", Target{}, "want name="},
		{"=x", Target{}, "empty target name"},
		{"a b=root@tcp(127.0.0.1)/", Target{}, "only letters"},
		{"a=", Target{}, "empty DSN"},
		{"a=mysql://u@127.0.0.1:xx/d", Target{}, "bad port"},
		{"a=not a dsn", Target{}, "invalid DSN"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseTarget(tc.in)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// TestParseTargetNeverEchoesPassword: a target that does not parse is
// named in the error with its password masked.
func TestParseTargetNeverEchoesPassword(t *testing.T) {
	for _, in := range []string{
		"mysql://root:s3cr3t@tcp(127.0.0.1:1)/x?bad%%",
		"a=mysql://root:s3cr3t@127.0.0.1:xx/d",
		"a=mysql://root:s3cr3t@/d",
		"a=root:s3cr3t@tcp(127.0.0.1:3306)/x?bad=%zz",
		"a=root:s3cr3t@nonsense",
		"a b=root:s3cr3t@tcp(127.0.0.1)/",
		"a=mysql://root:s3c@r3t@127.0.0.1:xx/d",
	} {
		_, err := ParseTarget(in)
		require.Error(t, err, in)
		require.NotContains(t, err.Error(), "s3c", in)
		require.NotContains(t, err.Error(), "r3t", in)
		require.Contains(t, err.Error(), "xxx", in)
	}
	require.Equal(t, "a=root@tcp(h)/d", RedactText("a=root@tcp(h)/d"), "no password: unchanged")
	require.Equal(t, "plain", RedactText("plain"))
}

func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"a=root@tcp(127.0.0.1:3306)/x", "b=mysql://u:p@[::1]:3307/d?x=y", "c=p.conf", "=", "a=mysql://@/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// Whatever follows it, a password typed in a target is never in an error.
		if _, err := ParseTarget("x=u:ZZSECRETZZ@" + s); err != nil {
			require.NotContains(t, err.Error(), "ZZSECRETZZ")
		}
		if _, err := ParseTarget("x=mysql://u:ZZSECRETZZ@" + s); err != nil {
			require.NotContains(t, err.Error(), "ZZSECRETZZ")
		}
		tg, err := ParseTarget(s)
		if err != nil {
			return
		}
		require.NotEmpty(t, tg.Name)
		require.True(t, tg.DSN != "" || tg.Props != "")
		if tg.DSN != "" {
			_ = Redact(tg.DSN)
		}
	})
}

func TestRedact(t *testing.T) {
	require.Equal(t, "u:xxx@tcp(127.0.0.1:3306)/d", Redact("u:secret@tcp(127.0.0.1:3306)/d"))
	require.Equal(t, "<unparsable DSN>", Redact("nope"))
	require.Equal(t, "127.0.0.1:3306", Addr("u@tcp(127.0.0.1:3306)/d"))
}

func TestBackoff(t *testing.T) {
	b := NewBackoff(100*time.Millisecond, time.Second, 1)
	var got []time.Duration
	for range 8 {
		got = append(got, b.Next())
	}
	bounds := []time.Duration{100, 200, 400, 800, 1000, 1000, 1000, 1000}
	for i, d := range got {
		hi := bounds[i] * time.Millisecond
		require.GreaterOrEqual(t, d, hi/2, "attempt %d", i)
		require.LessOrEqual(t, d, hi, "attempt %d", i)
	}
	b.Reset()
	require.LessOrEqual(t, b.Next(), 100*time.Millisecond)
	// Same seed, same jitter: reproducible runs.
	b1, b2 := NewBackoff(time.Millisecond, time.Second, 7), NewBackoff(time.Millisecond, time.Second, 7)
	for range 5 {
		require.Equal(t, b1.Next(), b2.Next())
	}
}
