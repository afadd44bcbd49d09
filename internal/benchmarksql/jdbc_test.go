package benchmarksql

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParseJDBCURL(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in       string
		host     string
		port     int
		db       string
		tls      string
		warnings []string
		err      string
	}{
		{name: "seed 000", in: "jdbc:mysql://192.168.1.10:3306/tpcc?useSSL=false&useServerPrepStmts=true&useConfigs=maxPerformance&rewriteBatchedStatements=true",
			host: "192.168.1.10", port: 3306, db: "tpcc", tls: "false"},
		{name: "default port", in: "jdbc:mysql://dbhost/tpcc", host: "dbhost", port: 3306, db: "tpcc"},
		{name: "mariadb scheme", in: "jdbc:mariadb://127.0.0.1:3307/bench", host: "127.0.0.1", port: 3307, db: "bench"},
		{name: "ipv6", in: "jdbc:mysql://[::1]:3307/tpcc?useSSL=true", host: "::1", port: 3307, db: "tpcc", tls: "preferred"},
		{name: "ipv6 default port", in: "jdbc:mysql://[fe80::1]/tpcc", host: "fe80::1", port: 3306, db: "tpcc"},
		{name: "sslMode", in: "jdbc:mysql://h/d?sslMode=REQUIRED", host: "h", port: 3306, db: "d", tls: "skip-verify"},
		{name: "unknown params warn", in: "jdbc:mysql://h/d?fooBar=1&useSSL=false&baz", host: "h", port: 3306, db: "d", tls: "false",
			warnings: []string{"JDBC parameter fooBar: unknown, ignored", "JDBC parameter baz: unknown, ignored"}},
		{name: "duplicate param", in: "jdbc:mysql://h/d?useSSL=true&useSSL=false", host: "h", port: 3306, db: "d", tls: "false",
			warnings: []string{"JDBC parameter useSSL given twice: the last one wins"}},
		{name: "not jdbc", in: "mysql://h/d", err: "want jdbc:mysql://"},
		{name: "postgres", in: "jdbc:postgresql://h/d", err: "want jdbc:mysql://"},
		{name: "no database", in: "jdbc:mysql://h:3306", err: "database name"},
		{name: "no database with params", in: "jdbc:mysql://h?useSSL=false", err: "no /database"},
		{name: "empty database", in: "jdbc:mysql://h:3306/?useSSL=false", err: "database name"},
		{name: "bad port", in: "jdbc:mysql://h:99999/d", err: `port "99999"`},
		{name: "port not a number", in: "jdbc:mysql://h:x/d", err: `port "x"`},
		{name: "several hosts", in: "jdbc:mysql://h1:3306,h2:3306/d", err: "several hosts"},
		{name: "unbracketed ipv6", in: "jdbc:mysql://::1:3306/d", err: "brackets"},
		{name: "unclosed bracket", in: "jdbc:mysql://[::1/d", err: "unclosed"},
		{name: "bracketed non-ipv6", in: "jdbc:mysql://[host]/d", err: "not an IPv6"},
		{name: "user in host", in: "jdbc:mysql://root@h/d", err: "user@host"},
		{name: "bad bool", in: "jdbc:mysql://h/d?useSSL=maybe", err: `useSSL="maybe": want true or false`},
		{name: "bad sslMode", in: "jdbc:mysql://h/d?sslMode=SOMETIMES", err: "sslMode"},
		{name: "bad timeout", in: "jdbc:mysql://h/d?connectTimeout=-5", err: "connectTimeout"},
		{name: "empty host", in: "jdbc:mysql:///d", err: "empty host"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, err := ParseJDBCURL(tc.in)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.host, u.Host)
			require.Equal(t, tc.port, u.Port)
			require.Equal(t, tc.db, u.Database)
			require.Equal(t, tc.tls, u.TLS)
			require.Equal(t, tc.warnings, u.Warnings)
		})
	}
}

func TestJDBCURLMapping(t *testing.T) {
	u, err := ParseJDBCURL("jdbc:mysql://h/d?connectTimeout=2500&socketTimeout=90000&characterEncoding=UTF-8&user=bench&password=s3cret")
	require.NoError(t, err)
	require.Equal(t, 2500*time.Millisecond, u.ConnectTimeout)
	require.Equal(t, 90*time.Second, u.SocketTimeout)
	require.Equal(t, "utf8mb4", u.Charset)
	require.Equal(t, "bench", u.User)
	require.Equal(t, "s3cret", u.Password)
	for _, s := range []string{u.String(), fmt.Sprintf("%v %+v %#v", u, *u, u)} {
		require.NotContains(t, s, "s3cret")
	}
}

func TestJDBCURLErrorsHidePassword(t *testing.T) {
	for _, in := range []string{
		"jdbc:mysql://h:0/d?password=s3cret",
		"jdbc:mysql://h/d?password=s3cret&useSSL=perhaps",
		"odbc:mysql://h/d?user=x&password=s3cret#frag",
	} {
		_, err := ParseJDBCURL(in)
		require.Error(t, err)
		require.NotContains(t, err.Error(), "s3cret")
	}
	require.Equal(t, "jdbc:mysql://h/d?password=***&a=1&PASSWORD=***", redactURL("jdbc:mysql://h/d?password=x&a=1&PASSWORD=y"))
}

func FuzzParseJDBCURL(f *testing.F) {
	for _, s := range []string{
		"jdbc:mysql://192.168.1.10:3306/tpcc?useSSL=false&useServerPrepStmts=true",
		"jdbc:mysql://[::1]:3307/tpcc", "jdbc:mariadb://h/d?password=x", "jdbc:mysql://h:/d", "jdbc:mysql://[/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseJDBCURL(s)
		if err != nil {
			return
		}
		require.NotEmpty(t, u.Host)
		require.NotEmpty(t, u.Database)
		require.True(t, u.Port >= 1 && u.Port <= 65535)
		if u.Password != "" {
			require.NotContains(t, u.String(), "password="+u.Password)
		}
	})
}
