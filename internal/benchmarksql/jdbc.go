package benchmarksql

import (
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// JDBCURL is a parsed jdbc:mysql:// (or jdbc:mariadb://) URL.
type JDBCURL struct {
	Host     string // without brackets for IPv6
	Port     int    // 3306 when the URL has none
	Database string
	// Params are the URL's query parameters, in URL order.
	Params []Param
	// Mapped onto go-sql-driver settings.
	TLS            string        // go-sql-driver tls value ("" = driver default)
	ConnectTimeout time.Duration // connectTimeout (ms)
	SocketTimeout  time.Duration // socketTimeout (ms)
	Charset        string
	User, Password string // user= / password= parameters, if any
	// Warnings name parameters walab does not know (never their values).
	Warnings []string
}

// Param is one JDBC URL parameter.
type Param struct{ Key, Value string }

// noOpParams are Connector/J options that need no counterpart here: the
// tpcc workload always uses server-side prepared statements, multi-row
// INSERTs and its own statement cache, and the runner reconnects.
var noOpParams = map[string]string{
	"useServerPrepStmts":          "tpcc always uses server-side prepared statements",
	"rewriteBatchedStatements":    "the loader always sends multi-row INSERTs",
	"cachePrepStmts":              "each terminal caches its prepared statements",
	"prepStmtCacheSize":           "each terminal caches its prepared statements",
	"prepStmtCacheSqlLimit":       "each terminal caches its prepared statements",
	"useConfigs":                  "Connector/J tuning bundle",
	"useLocalSessionState":        "Connector/J tuning",
	"useLocalTransactionState":    "Connector/J tuning",
	"elideSetAutoCommits":         "Connector/J tuning",
	"alwaysSendSetIsolation":      "Connector/J tuning",
	"cacheServerConfiguration":    "Connector/J tuning",
	"cacheResultSetMetadata":      "Connector/J tuning",
	"cacheCallableStmts":          "Connector/J tuning",
	"maintainTimeStats":           "Connector/J tuning",
	"enableQueryTimeouts":         "Connector/J tuning",
	"zeroDateTimeBehavior":        "timestamps are not read back",
	"serverTimezone":              "timestamps are written by the server (CURRENT_TIMESTAMP)",
	"useLegacyDatetimeCode":       "timestamps are written by the server",
	"useUnicode":                  "the connection is always Unicode",
	"allowPublicKeyRetrieval":     "go-sql-driver fetches the server key itself",
	"autoReconnect":               "the runner reconnects",
	"allowMultiQueries":           "not used",
	"defaultFetchSize":            "not used",
	"useCursorFetch":              "not used",
	"tcpKeepAlive":                "go's dialer keeps connections alive",
	"tcpNoDelay":                  "go sets TCP_NODELAY",
	"verifyServerCertificate":     "see useSSL/sslMode",
	"requireSSL":                  "see useSSL/sslMode",
	"allowLoadLocalInfile":        "not used",
	"useAffectedRows":             "not used",
	"nullCatalogMeansCurrent":     "not used",
	"jdbcCompliantTruncation":     "not used",
	"emulateUnsupportedPstmts":    "not used",
	"dumpQueriesOnException":      "not used",
	"continueBatchOnError":        "not used",
	"useInformationSchema":        "not used",
	"connectionCollation":         "the driver's utf8mb4 collation is used",
	"characterSetResults":         "the driver's utf8mb4 is used",
	"sessionVariables":            "not supported; set them on the server",
	"failOverReadOnly":            "single host only",
	"maxReconnects":               "the runner reconnects",
	"initialTimeout":              "the runner reconnects",
	"loadBalanceBlocklistTimeout": "single host only",
}

// ParseJDBCURL parses jdbc:mysql://host[:port]/database[?k=v&...]. Only a
// single host is supported. Unknown parameters become warnings.
func ParseJDBCURL(s string) (*JDBCURL, error) {
	rest, ok := cutPrefixFold(s, "jdbc:mysql://")
	if !ok {
		rest, ok = cutPrefixFold(s, "jdbc:mariadb://")
	}
	if !ok {
		return nil, fmt.Errorf("JDBC URL %q: want jdbc:mysql://host[:port]/database", redactURL(s))
	}
	hostport, pathQuery, _ := strings.Cut(rest, "/")
	if i := strings.IndexAny(hostport, "?#"); i >= 0 {
		return nil, fmt.Errorf("JDBC URL %q: no /database after the host", redactURL(s))
	}
	if strings.Contains(hostport, "@") {
		return nil, fmt.Errorf("JDBC URL %q: user@host is not supported; use the user and password keys", redactURL(s))
	}
	if strings.Contains(hostport, ",") || strings.Contains(hostport, "(") {
		return nil, fmt.Errorf("JDBC URL %q: several hosts (failover, load balancing) are not supported: give one host", redactURL(s))
	}
	u := &JDBCURL{Port: 3306}
	var err error
	if u.Host, u.Port, err = splitHostPort(hostport); err != nil {
		return nil, fmt.Errorf("JDBC URL %q: %w", redactURL(s), err)
	}
	path, query, _ := strings.Cut(pathQuery, "?")
	path, _, _ = strings.Cut(path, "#")
	if u.Database, err = url.PathUnescape(path); err != nil || u.Database == "" || strings.ContainsAny(u.Database, "/`") {
		return nil, fmt.Errorf("JDBC URL %q: want a database name after the host", redactURL(s))
	}
	query, _, _ = strings.Cut(query, "#")
	if err := u.parseParams(query); err != nil {
		return nil, fmt.Errorf("JDBC URL %q: %w", redactURL(s), err)
	}
	return u, nil
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// splitHostPort accepts host, host:port, [v6] and [v6]:port.
func splitHostPort(hp string) (string, int, error) {
	if hp == "" {
		return "", 0, fmt.Errorf("empty host")
	}
	host, portStr := hp, ""
	if strings.HasPrefix(hp, "[") {
		end := strings.IndexByte(hp, ']')
		if end < 0 {
			return "", 0, fmt.Errorf("unclosed [ in IPv6 host")
		}
		host = hp[1:end]
		after := hp[end+1:]
		if after != "" {
			p, ok := strings.CutPrefix(after, ":")
			if !ok {
				return "", 0, fmt.Errorf("unexpected %q after IPv6 host", after)
			}
			portStr = p
		}
		if net.ParseIP(host) == nil || !strings.Contains(host, ":") {
			return "", 0, fmt.Errorf("%q is not an IPv6 address", host)
		}
	} else {
		if strings.Count(hp, ":") > 1 {
			return "", 0, fmt.Errorf("IPv6 host %q must be in brackets", hp)
		}
		if h, p, ok := strings.Cut(hp, ":"); ok {
			host, portStr = h, p
		}
		if host == "" {
			return "", 0, fmt.Errorf("empty host")
		}
		for _, c := range host {
			if !(c == '.' || c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				return "", 0, fmt.Errorf("host %q: invalid character %q", host, c)
			}
		}
	}
	port := 3306
	if portStr != "" {
		p, err := strconv.Atoi(portStr)
		if err != nil || p < 1 || p > 65535 {
			return "", 0, fmt.Errorf("port %q: want 1..65535", portStr)
		}
		port = p
	}
	return host, port, nil
}

func (u *JDBCURL) parseParams(query string) error {
	if query == "" {
		return nil
	}
	seen := map[string]bool{}
	for _, kv := range strings.Split(query, "&") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			return fmt.Errorf("parameter %q: bad escape", k)
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			return fmt.Errorf("parameter %s: bad escape in value", key)
		}
		if seen[key] {
			u.Warnings = append(u.Warnings, fmt.Sprintf("JDBC parameter %s given twice: the last one wins", key))
		}
		seen[key] = true
		u.Params = append(u.Params, Param{Key: key, Value: val})
		if err := u.apply(key, val); err != nil {
			return err
		}
	}
	return nil
}

// apply maps one parameter. Errors name the key, never a credential.
func (u *JDBCURL) apply(key, val string) error {
	boolean := func() (bool, error) {
		switch strings.ToLower(val) {
		case "true", "yes":
			return true, nil
		case "false", "no":
			return false, nil
		}
		return false, fmt.Errorf("parameter %s=%q: want true or false", key, val)
	}
	millis := func() (time.Duration, error) {
		n, err := strconv.ParseInt(val, 10, 32)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("parameter %s=%q: want milliseconds >= 0", key, val)
		}
		return time.Duration(n) * time.Millisecond, nil
	}
	var err error
	switch key {
	case "user":
		u.User = val
	case "password":
		u.Password = val
	case "useSSL":
		var on bool
		if on, err = boolean(); err == nil {
			u.TLS = map[bool]string{true: "preferred", false: "false"}[on]
		}
	case "sslMode":
		switch strings.ToUpper(val) {
		case "DISABLED":
			u.TLS = "false"
		case "PREFERRED":
			u.TLS = "preferred"
		case "REQUIRED":
			u.TLS = "skip-verify"
		case "VERIFY_CA", "VERIFY_IDENTITY":
			u.TLS = "true"
		default:
			err = fmt.Errorf("parameter sslMode=%q: want DISABLED, PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY", val)
		}
	case "connectTimeout":
		u.ConnectTimeout, err = millis()
	case "socketTimeout":
		u.SocketTimeout, err = millis()
	case "characterEncoding":
		switch strings.ToLower(strings.ReplaceAll(val, "-", "")) {
		case "utf8", "utf8mb4":
			u.Charset = "utf8mb4"
		case "latin1", "iso88591":
			u.Charset = "latin1"
		default:
			u.Warnings = append(u.Warnings, fmt.Sprintf("JDBC parameter characterEncoding=%q: not mapped, the driver default utf8mb4 is used", val))
		}
	default:
		if _, ok := noOpParams[key]; !ok {
			u.Warnings = append(u.Warnings, fmt.Sprintf("JDBC parameter %s: unknown, ignored", key))
		}
	}
	return err
}

// Mapped lists the parameters that had an effect, sorted, for reports.
func (u *JDBCURL) Mapped() []string {
	var out []string
	for _, p := range u.Params {
		switch p.Key {
		case "useSSL", "sslMode", "connectTimeout", "socketTimeout", "characterEncoding", "user":
			out = append(out, p.Key+"="+p.Value)
		case "password":
			out = append(out, "password=***")
		}
	}
	sort.Strings(out)
	return out
}

// redactURL hides a password= parameter's value.
func redactURL(s string) string {
	i := indexFoldASCII(s, "password=")
	if i < 0 {
		return s
	}
	j := i + len("password=")
	end := strings.IndexAny(s[j:], "&#")
	if end < 0 {
		return s[:j] + "***"
	}
	return s[:j] + "***" + redactURL(s[j+end:])
}

// String describes the URL without the password.
func (u JDBCURL) String() string {
	return fmt.Sprintf("mysql://%s/%s %v", net.JoinHostPort(u.Host, strconv.Itoa(u.Port)), u.Database, u.Mapped())
}

// GoString keeps %#v from printing the password field.
func (u JDBCURL) GoString() string { return "benchmarksql.JDBCURL{" + u.String() + "}" }

// indexFoldASCII is strings.Index ignoring ASCII case. (strings.ToLower
// would change byte offsets for some non-ASCII input.)
func indexFoldASCII(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}
