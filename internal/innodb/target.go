package innodb

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/walab/walab/internal/mycnf"
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
		cl, err := mycnf.ParseFile(t.MyCnf)
		if err != nil {
			return nil, fmt.Errorf("innodb target %q: my_cnf: %w", t.Name, err)
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
