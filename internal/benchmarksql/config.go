package benchmarksql

import (
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/walab/walab/internal/workload/tpcc"
)

// Config is a BenchmarkSQL props file. Password is never printed: String
// and every error and warning leave it out.
type Config struct {
	DB, Driver string
	Conn       string   // the JDBC URL as written (may hold a password: use ConnRedacted)
	URL        *JDBCURL // parsed Conn
	User       string
	Password   string

	Warehouses             int
	LoadWorkers            int
	Terminals              int
	TerminalWarehouseFixed bool
	RunMins                int
	RunTxnsPerTerminal     int
	LimitTxnsPerMin        int
	Weights                tpcc.Weights
	// BenchmarkSQL 6 multipliers; > 0 turns the spec's keying/think times on.
	KeyingTimeMultiplier, ThinkTimeMultiplier float64

	// Warnings: unknown keys, accepted-but-ignored keys, unknown JDBC
	// parameters, duplicates. Never contain the password.
	Warnings []string
}

// ignoredKeys are BenchmarkSQL keys walab accepts and ignores (with a
// warning): walab has its own result files, OS and block-device metrics
// (the exporter), and loads through the server only.
var ignoredKeys = map[string]string{
	"resultDirectory":             "walab writes its own results and metrics",
	"osCollectorScript":           "the walab exporter collects OS and device metrics",
	"osCollectorInterval":         "the walab exporter collects OS and device metrics",
	"osCollectorSSHAddr":          "the walab exporter collects OS and device metrics",
	"osCollectorDevices":          "the walab exporter collects OS and device metrics",
	"fileLocation":                "CSV output is not supported: the loader inserts directly",
	"csvNullValue":                "CSV output is not supported: the loader inserts directly",
	"useStoredProcedures":         "the profiles run as client-side SQL",
	"application":                 "the profiles run as client-side SQL",
	"rampupMins":                  "set ramp-up in the runner",
	"rampupSUTMins":               "set ramp-up in the runner",
	"rampupTerminalMins":          "set ramp-up in the runner",
	"reportIntervalSecs":          "the runner reports continuously",
	"reportScript":                "walab has its own reports",
	"traceTerminalIO":             "not supported",
	"sutThreads":                  "one connection per terminal",
	"maxDeliveryBGThreads":        "Delivery runs inside the terminal (BenchmarkSQL 5.0 behaviour)",
	"maxDeliveryBGPerWarehouse":   "Delivery runs inside the terminal (BenchmarkSQL 5.0 behaviour)",
	"monkeys":                     "not supported",
	"terminalMultiplier":          "not supported",
	"useWarehouseFrom":            "not supported",
	"useWarehouseTo":              "not supported",
	"rollbackPercent":             "the New-Order rollback is the spec's 1%",
	"restartSUTThreadProbability": "not supported",
}

var weightKeys = []string{"newOrderWeight", "paymentWeight", "orderStatusWeight", "deliveryWeight", "stockLevelWeight"}

// Load reads and parses a props file.
func Load(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Parse reads props text. Invalid values are refused with the key and the
// reason; unknown keys only warn.
func Parse(r io.Reader) (*Config, error) {
	props, err := ParseProperties(r)
	if err != nil {
		return nil, err
	}
	c := &Config{LoadWorkers: 4}
	kv := map[string]Property{}
	for _, p := range props {
		if prev, dup := kv[p.Key]; dup {
			c.Warnings = append(c.Warnings, fmt.Sprintf("line %d: %s repeats line %d: the last one wins", p.Line, p.Key, prev.Line))
		}
		kv[p.Key] = p
	}
	// Walk in file order so warnings come out in a stable order.
	for _, p := range props {
		if kv[p.Key].Line != p.Line {
			continue
		}
		if err := c.set(p); err != nil {
			return nil, err
		}
	}
	if err := c.finish(kv); err != nil {
		return nil, err
	}
	return c, nil
}

// set applies one property to c: an integer or multiplier key, a string
// key, or a warning for a key walab ignores or does not know.
func (c *Config) set(p Property) error {
	v := strings.TrimSpace(p.Value)
	if dst, lo, ok := c.intKey(p.Key); ok {
		return setInteger(p, v, dst, lo)
	}
	if dst, ok := c.multiplierKey(p.Key); ok {
		return setMultiplier(p, v, dst)
	}
	switch p.Key {
	case "db":
		return c.setDB(p, v)
	case "driver":
		c.setDriver(p, v)
	case "conn":
		return c.setConn(p, v)
	case "user":
		c.User = v
	case "password":
		c.Password = p.Value // as written: Java keeps trailing spaces
	case "terminalWarehouseFixed":
		switch strings.ToLower(v) {
		case "true":
			c.TerminalWarehouseFixed = true
		case "false":
			c.TerminalWarehouseFixed = false
		default:
			return fmt.Errorf("line %d: terminalWarehouseFixed=%q: want true or false", p.Line, v)
		}
	default:
		if why, ok := ignoredKeys[p.Key]; ok {
			c.Warnings = append(c.Warnings, fmt.Sprintf("line %d: %s ignored: %s", p.Line, p.Key, why))
		} else {
			c.Warnings = append(c.Warnings, fmt.Sprintf("line %d: unknown key %s ignored", p.Line, p.Key))
		}
	}
	return nil
}

// intKey is the field an integer key sets and the least value it takes.
func (c *Config) intKey(key string) (dst *int, lo int, ok bool) {
	switch key {
	case "warehouses":
		return &c.Warehouses, 1, true
	case "loadWorkers":
		return &c.LoadWorkers, 1, true
	case "terminals":
		return &c.Terminals, 1, true
	case "runMins":
		return &c.RunMins, 0, true
	case "runTxnsPerTerminal":
		return &c.RunTxnsPerTerminal, 0, true
	case "limitTxnsPerMin":
		return &c.LimitTxnsPerMin, 0, true
	case "newOrderWeight":
		return &c.Weights.NewOrder, 0, true
	case "paymentWeight":
		return &c.Weights.Payment, 0, true
	case "orderStatusWeight":
		return &c.Weights.OrderStatus, 0, true
	case "deliveryWeight":
		return &c.Weights.Delivery, 0, true
	case "stockLevelWeight":
		return &c.Weights.StockLevel, 0, true
	}
	return nil, 0, false
}

// multiplierKey is the field a time-multiplier key sets.
func (c *Config) multiplierKey(key string) (*float64, bool) {
	switch key {
	case "keyingTimeMultiplier":
		return &c.KeyingTimeMultiplier, true
	case "thinkTimeMultiplier":
		return &c.ThinkTimeMultiplier, true
	}
	return nil, false
}

// setInteger sets *dst to p's value v, an integer of at least lo.
func setInteger(p Property, v string, dst *int, lo int) error {
	n, err := strconv.Atoi(v)
	if err != nil {
		return fmt.Errorf("line %d: %s=%q: not an integer", p.Line, p.Key, v)
	}
	if n < lo {
		return fmt.Errorf("line %d: %s=%d: must be at least %d", p.Line, p.Key, n, lo)
	}
	*dst = n
	return nil
}

// setMultiplier sets *dst to p's value v, a number in 0..1000.
func setMultiplier(p Property, v string, dst *float64) error {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || f > 1000 {
		return fmt.Errorf("line %d: %s=%q: want a number in 0..1000", p.Line, p.Key, v)
	}
	*dst = f
	return nil
}

// setDB takes db=mysql or db=mariadb, the only databases walab drives.
func (c *Config) setDB(p Property, v string) error {
	switch strings.ToLower(v) {
	case "mysql", "mariadb":
		c.DB = strings.ToLower(v)
		return nil
	}
	return fmt.Errorf("line %d: db=%q: walab drives MySQL and MariaDB only (db=mysql)", p.Line, v)
}

// setDriver keeps the JDBC driver's name, with a warning when it is not a
// MySQL/MariaDB one: the Go MySQL driver is used whatever it says.
func (c *Config) setDriver(p Property, v string) {
	c.Driver = v
	switch v {
	case "com.mysql.jdbc.Driver", "com.mysql.cj.jdbc.Driver", "org.mariadb.jdbc.Driver":
	default:
		c.Warnings = append(c.Warnings, fmt.Sprintf("line %d: driver=%q is not a MySQL/MariaDB JDBC driver; the Go MySQL driver is used anyway", p.Line, v))
	}
}

// setConn parses the JDBC URL, keeping its warnings.
func (c *Config) setConn(p Property, v string) error {
	u, err := ParseJDBCURL(v)
	if err != nil {
		return fmt.Errorf("line %d: conn: %w", p.Line, err)
	}
	c.Conn, c.URL = v, u
	for _, w := range u.Warnings {
		c.Warnings = append(c.Warnings, fmt.Sprintf("line %d: %s", p.Line, w))
	}
	return nil
}

// finish checks required keys and cross-key rules.
func (c *Config) finish(kv map[string]Property) error {
	if c.URL == nil {
		return fmt.Errorf("conn: missing (want jdbc:mysql://host:port/database)")
	}
	if _, ok := kv["db"]; !ok {
		c.DB = "mysql"
		c.Warnings = append(c.Warnings, "db missing: assuming db=mysql")
	}
	if c.User == "" {
		c.User = c.URL.User
	}
	if _, ok := kv["password"]; !ok {
		c.Password = c.URL.Password
	}
	if c.User == "" {
		return fmt.Errorf("user: missing")
	}
	if c.Warehouses == 0 {
		return fmt.Errorf("warehouses: missing")
	}
	if _, ok := kv["terminals"]; ok && c.Terminals > 10*c.Warehouses {
		// BenchmarkSQL's own limit: at most 10 terminals per warehouse.
		return fmt.Errorf("terminals=%d: at most 10 per warehouse (%d for warehouses=%d)", c.Terminals, 10*c.Warehouses, c.Warehouses)
	}
	if c.RunMins != 0 && c.RunTxnsPerTerminal != 0 {
		return fmt.Errorf("runMins=%d and runTxnsPerTerminal=%d: exactly one may be non-zero (as in BenchmarkSQL)", c.RunMins, c.RunTxnsPerTerminal)
	}
	if c.RunMins == 0 && c.RunTxnsPerTerminal == 0 {
		c.Warnings = append(c.Warnings, "runMins and runTxnsPerTerminal are both 0: fine for prepare, a run needs one of them")
	}
	given := 0
	for _, k := range weightKeys {
		if _, ok := kv[k]; ok {
			given++
		}
	}
	switch given {
	case 0:
		c.Weights = tpcc.DefaultWeights
	case len(weightKeys):
		if err := c.Weights.Validate(); err != nil {
			return err
		}
	default:
		for _, k := range weightKeys {
			if _, ok := kv[k]; !ok {
				return fmt.Errorf("%s: missing while other weights are set (give all five, summing to 100)", k)
			}
		}
	}
	return nil
}

// DSN is the go-sql-driver DSN for the props' server and credentials.
// Timeouts keep a dead server from hanging a terminal: connectTimeout and
// socketTimeout from the URL when given, else 5 s and 60 s.
func (c *Config) DSN() string {
	cfg := mysql.NewConfig()
	cfg.User = c.User
	cfg.Passwd = c.Password
	cfg.Net = "tcp"
	cfg.Addr = net.JoinHostPort(c.URL.Host, strconv.Itoa(c.URL.Port))
	cfg.DBName = c.URL.Database
	cfg.Timeout = 5 * time.Second
	cfg.ReadTimeout = 60 * time.Second
	cfg.WriteTimeout = 60 * time.Second
	if c.URL.ConnectTimeout > 0 {
		cfg.Timeout = c.URL.ConnectTimeout
	}
	if c.URL.SocketTimeout > 0 {
		cfg.ReadTimeout, cfg.WriteTimeout = c.URL.SocketTimeout, c.URL.SocketTimeout
	}
	if c.URL.TLS != "" {
		cfg.TLSConfig = c.URL.TLS
	}
	if c.URL.Charset == "latin1" {
		cfg.Params = map[string]string{"charset": "latin1"}
	}
	return cfg.FormatDSN()
}

// TPCCOptions maps the benchmark keys onto the tpcc workload.
func (c *Config) TPCCOptions() tpcc.Options {
	return tpcc.Options{
		Warehouses:             c.Warehouses,
		TerminalWarehouseFixed: c.TerminalWarehouseFixed,
		Weights:                c.Weights,
		KeyingTimes:            c.KeyingTimeMultiplier > 0,
		KeyingTimeMultiplier:   c.KeyingTimeMultiplier,
		ThinkTimes:             c.ThinkTimeMultiplier > 0,
		ThinkTimeMultiplier:    c.ThinkTimeMultiplier,
	}
}

// ConnRedacted is Conn with any password= parameter hidden.
func (c Config) ConnRedacted() string { return redactURL(c.Conn) }

// String summarises the config for logs, without the password.
func (c Config) String() string {
	pw := "(empty)"
	if c.Password != "" {
		pw = "***"
	}
	return fmt.Sprintf("db=%s conn=%s user=%s password=%s warehouses=%d loadWorkers=%d terminals=%d "+
		"terminalWarehouseFixed=%t runMins=%d runTxnsPerTerminal=%d limitTxnsPerMin=%d weights=%d/%d/%d/%d/%d",
		c.DB, c.ConnRedacted(), c.User, pw, c.Warehouses, c.LoadWorkers, c.Terminals, c.TerminalWarehouseFixed,
		c.RunMins, c.RunTxnsPerTerminal, c.LimitTxnsPerMin,
		c.Weights.NewOrder, c.Weights.Payment, c.Weights.OrderStatus, c.Weights.Delivery, c.Weights.StockLevel)
}

// GoString keeps %#v from printing the password field.
func (c Config) GoString() string { return "benchmarksql.Config{" + c.String() + "}" }
