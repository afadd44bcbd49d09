package innodb

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// TargetConfig is one MySQL/MariaDB server in the exporter's YAML.
// Credentials come from a my.cnf-style file or a DSN file so that no
// password sits on a command line; an inline DSN is accepted for
// password-less lab setups.
type TargetConfig struct {
	Name    string        `yaml:"name"`
	DSN     string        `yaml:"dsn"`      // go-sql-driver DSN, e.g. "walab@tcp(127.0.0.1:3306)/"
	DSNFile string        `yaml:"dsn_file"` // a file holding the DSN
	MyCnf   string        `yaml:"my_cnf"`   // [client] user, password, host, port, socket
	Timeout time.Duration `yaml:"timeout"`  // per scrape of this target; default 5s
}

// DefaultTimeout bounds one target's scrape.
const DefaultTimeout = 5 * time.Second

// Resolve turns the target into a driver config. Errors never include the password.
func (t TargetConfig) Resolve() (*mysql.Config, error) {
	if t.Name == "" {
		return nil, errors.New("innodb target: name is required")
	}
	n := 0
	for _, s := range []string{t.DSN, t.DSNFile, t.MyCnf} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return nil, fmt.Errorf("innodb target %q: give exactly one of dsn, dsn_file, my_cnf", t.Name)
	}
	var cfg *mysql.Config
	switch {
	case t.DSN != "":
		c, err := mysql.ParseDSN(t.DSN)
		if err != nil {
			return nil, fmt.Errorf("innodb target %q: dsn: %v", t.Name, redactErr(err))
		}
		cfg = c
	case t.DSNFile != "":
		b, err := os.ReadFile(t.DSNFile)
		if err != nil {
			return nil, fmt.Errorf("innodb target %q: %w", t.Name, err)
		}
		c, err := mysql.ParseDSN(strings.TrimSpace(string(b)))
		if err != nil {
			return nil, fmt.Errorf("innodb target %q: dsn_file %s: %v", t.Name, t.DSNFile, redactErr(err))
		}
		cfg = c
	default:
		f, err := os.Open(t.MyCnf)
		if err != nil {
			return nil, fmt.Errorf("innodb target %q: %w", t.Name, err)
		}
		defer f.Close()
		cl, err := ParseMyCnf(f)
		if err != nil {
			return nil, fmt.Errorf("innodb target %q: %s: %w", t.Name, t.MyCnf, err)
		}
		cfg = cl.Config()
	}
	timeout := t.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout = timeout, timeout, timeout
	return cfg, nil
}

// redactErr keeps the driver's message but not the DSN it may echo.
func redactErr(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "@"); i >= 0 {
		return "invalid DSN (details withheld: it may contain a password)"
	}
	return msg
}

// Client is the [client] section of a my.cnf file.
type Client struct {
	User, Password, Host, Socket string
	Port                         int
}

// Config builds a driver config (TCP unless only a socket is given).
func (c Client) Config() *mysql.Config {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd = c.User, c.Password
	switch {
	case c.Socket != "" && c.Host == "":
		cfg.Net, cfg.Addr = "unix", c.Socket
	default:
		host, port := c.Host, c.Port
		if host == "" {
			host = "127.0.0.1"
		}
		if port == 0 {
			port = 3306
		}
		cfg.Net, cfg.Addr = "tcp", fmt.Sprintf("%s:%d", host, port)
		if strings.Contains(host, ":") {
			cfg.Addr = fmt.Sprintf("[%s]:%d", host, port)
		}
	}
	return cfg
}

// ParseMyCnf reads the [client] section (as the mysql client does:
// later keys win, quotes are stripped, !include is not followed).
func ParseMyCnf(r io.Reader) (Client, error) {
	var c Client
	sc := bufio.NewScanner(r)
	section := ""
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' || line[0] == '!' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return Client{}, fmt.Errorf("line %d: unclosed section header", n)
			}
			section = strings.ToLower(strings.TrimSpace(line[1:end]))
			continue
		}
		if section != "client" {
			continue
		}
		k, v, _ := strings.Cut(line, "=")
		k = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(k)), "_", "-")
		v = unquote(strings.TrimSpace(v))
		switch k {
		case "user":
			c.User = v
		case "password":
			c.Password = v
		case "host":
			c.Host = v
		case "socket":
			c.Socket = v
		case "port":
			p, err := strconv.Atoi(v)
			if err != nil || p <= 0 || p > 65535 {
				return Client{}, fmt.Errorf("line %d: port %q is not a TCP port", n, v)
			}
			c.Port = p
		}
	}
	if err := sc.Err(); err != nil {
		return Client{}, err
	}
	return c, nil
}

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		return v[1 : len(v)-1]
	}
	return v
}
