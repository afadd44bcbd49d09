// Package driver owns the MySQL side of loadgen: DSNs built from
// sysbench-style flags, classification of server and network errors, and
// reconnecting with backoff.
package driver

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Conn holds the sysbench-style connection flags (--mysql-host, ...).
type Conn struct {
	Host     string
	Port     int
	Socket   string
	User     string
	Password string
	DB       string
}

// DSN builds a go-sql-driver DSN. Timeouts keep a dead server from hanging a
// terminal forever: the runner relies on errors to reconnect.
func (c Conn) DSN() (string, error) {
	if c.User == "" {
		return "", fmt.Errorf("mysql user is empty")
	}
	cfg := mysql.NewConfig()
	cfg.User = c.User
	cfg.Passwd = c.Password
	cfg.DBName = c.DB
	if c.Socket != "" {
		cfg.Net = "unix"
		cfg.Addr = c.Socket
	} else {
		if c.Host == "" {
			return "", fmt.Errorf("mysql host is empty")
		}
		if c.Port <= 0 || c.Port > 65535 {
			return "", fmt.Errorf("mysql port %d out of range 1..65535", c.Port)
		}
		host := c.Host
		if host == "localhost" {
			// sysbench's default host; go-sql-driver has no implicit socket.
			host = "127.0.0.1"
		}
		cfg.Net = "tcp"
		cfg.Addr = net.JoinHostPort(host, strconv.Itoa(c.Port))
	}
	cfg.Timeout = 5 * time.Second
	cfg.ReadTimeout = 60 * time.Second
	cfg.WriteTimeout = 60 * time.Second
	return cfg.FormatDSN(), nil
}

// Target is one database the load runs against, named for metric labels.
type Target struct {
	Name string
	DSN  string // go-sql-driver DSN
	// Props is a BenchmarkSQL props file path when the target was given as one.
	Props string
}

// ParseTarget parses a --target value: "name=DSN" where DSN is a
// go-sql-driver DSN ("user:pw@tcp(127.0.0.1:3307)/db"), a mysql:// URL
// ("mysql://user:pw@127.0.0.1:3307/db"), or a path ending in .conf or
// .properties (a BenchmarkSQL props file, resolved by the caller).
func ParseTarget(s string) (Target, error) {
	name, rest, ok := strings.Cut(s, "=")
	if !ok {
		return Target{}, fmt.Errorf("target %q: want name=DSN|URL|props-file", RedactText(s))
	}
	name = strings.TrimSpace(name)
	if err := checkTargetName(name); err != nil {
		return Target{}, fmt.Errorf("target %q: %w", RedactText(s), err)
	}
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return Target{}, fmt.Errorf("target %q: empty DSN", RedactText(s))
	}
	if strings.HasSuffix(rest, ".conf") || strings.HasSuffix(rest, ".properties") || strings.HasSuffix(rest, ".props") {
		return Target{Name: name, Props: rest}, nil
	}
	if strings.HasPrefix(rest, "mysql://") {
		dsn, err := URLToDSN(rest)
		if err != nil {
			return Target{}, fmt.Errorf("target %q: %w", RedactText(s), err)
		}
		return Target{Name: name, DSN: dsn}, nil
	}
	cfg, err := mysql.ParseDSN(rest)
	if err != nil {
		return Target{}, fmt.Errorf("target %q: %w", RedactText(s), err)
	}
	return Target{Name: name, DSN: withTimeouts(cfg).FormatDSN()}, nil
}

// checkTargetName keeps the label value short and printable.
func checkTargetName(name string) error {
	if name == "" {
		return fmt.Errorf("empty target name")
	}
	if len(name) > 64 {
		return fmt.Errorf("target name longer than 64 bytes")
	}
	for _, r := range name {
		ok := r == '_' || r == '-' || r == '.' || r == ':' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			return fmt.Errorf("target name %q: only letters, digits and _-.: allowed", name)
		}
	}
	return nil
}

// URLToDSN converts mysql://user:pw@host:port/db?params to a DSN.
func URLToDSN(u string) (string, error) {
	rest, ok := strings.CutPrefix(u, "mysql://")
	if !ok {
		return "", fmt.Errorf("URL %q does not start with mysql://", RedactText(u))
	}
	var params string
	rest, params, _ = strings.Cut(rest, "?")
	hostpart, db, _ := strings.Cut(rest, "/")
	userinfo := ""
	if i := strings.LastIndex(hostpart, "@"); i >= 0 {
		userinfo, hostpart = hostpart[:i], hostpart[i+1:]
	}
	user, pw, _ := strings.Cut(userinfo, ":")
	if hostpart == "" {
		return "", fmt.Errorf("URL %q has no host", RedactText(u))
	}
	host, port, err := net.SplitHostPort(hostpart)
	if err != nil {
		host, port = hostpart, "3306"
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return "", fmt.Errorf("URL %q: bad port %q", RedactText(u), port)
	}
	c := Conn{Host: strings.Trim(host, "[]"), Port: p, User: user, Password: pw, DB: db}
	if c.User == "" {
		c.User = "root"
	}
	dsn, err := c.DSN()
	if err != nil {
		return "", err
	}
	if params != "" {
		cfg, err := mysql.ParseDSN(dsn + "&" + params)
		if err != nil {
			return "", fmt.Errorf("URL %q: %w", RedactText(u), err)
		}
		dsn = cfg.FormatDSN()
	}
	return dsn, nil
}

func withTimeouts(cfg *mysql.Config) *mysql.Config {
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.ReadTimeout == 0 {
		cfg.ReadTimeout = 60 * time.Second
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = 60 * time.Second
	}
	return cfg
}

// Redact returns the DSN with its password replaced, for logs and reports.
func Redact(dsn string) string {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return "<unparsable DSN>"
	}
	if cfg.Passwd != "" {
		cfg.Passwd = "xxx"
	}
	return cfg.FormatDSN()
}

// RedactText masks the password of a target or DSN as the user typed it,
// parsable or not ("name=root:pw@tcp(h:3306)/db", "mysql://root:pw@h/db"):
// whatever lies between the user's ':' and the last '@' becomes "xxx". For
// error messages about input that did not parse; Redact is for DSNs.
func RedactText(s string) string {
	at := strings.LastIndex(s, "@")
	if at < 0 {
		return s
	}
	start := 0
	if eq, colon := strings.Index(s, "="), strings.Index(s, ":"); eq >= 0 && (colon < 0 || eq < colon) {
		start = eq + 1 // "name=" of a --target
	}
	if strings.HasPrefix(s[start:], "mysql://") {
		start += len("mysql://")
	}
	if at < start {
		return s
	}
	colon := strings.Index(s[start:at], ":")
	if colon < 0 {
		return s
	}
	return s[:start+colon+1] + "xxx" + s[at:]
}

// Addr returns the network address of a DSN ("127.0.0.1:3306"), "" if unparsable.
func Addr(dsn string) string {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return ""
	}
	return cfg.Addr
}
