package benchmarksql

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/walab/walab/internal/golden"

	"database/sql"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
	"github.com/walab/walab/internal/workload/tpcc"
)

// describe renders a parsed config for the golden file, password hidden.
func describe(t *testing.T, c *Config) string {
	t.Helper()
	dsn, err := mysql.ParseDSN(c.DSN())
	require.NoError(t, err)
	if dsn.Passwd != "" {
		dsn.Passwd = "***"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "config: %s\n", c)
	fmt.Fprintf(&b, "url: %s\n", c.URL)
	fmt.Fprintf(&b, "dsn: %s\n", dsn.FormatDSN())
	fmt.Fprintf(&b, "tpcc: %+v\n", c.TPCCOptions())
	for _, w := range c.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}

func TestParseSeedProps(t *testing.T) {
	for _, tc := range []struct {
		file string
		port int
	}{{"props.conf", 3306}, {"props-2.conf", 3307}} {
		t.Run(tc.file, func(t *testing.T) {
			c, err := Load(filepath.Join("testdata", tc.file))
			require.NoError(t, err)
			require.Equal(t, "mysql", c.DB)
			require.Equal(t, "192.168.1.10", c.URL.Host)
			require.Equal(t, tc.port, c.URL.Port)
			require.Equal(t, "tpcc", c.URL.Database)
			require.Equal(t, "false", c.URL.TLS)
			require.Equal(t, "root", c.User)
			require.Equal(t, "123456", c.Password)
			require.Equal(t, 4050, c.Warehouses)
			require.Equal(t, 100, c.LoadWorkers)
			require.Equal(t, 330, c.Terminals)
			require.True(t, c.TerminalWarehouseFixed)
			require.Equal(t, 720, c.RunMins)
			require.Zero(t, c.RunTxnsPerTerminal)
			require.Equal(t, 1000000000, c.LimitTxnsPerMin)
			require.Equal(t, tpcc.DefaultWeights, c.Weights)
			require.Equal(t, []string{"line 6: unknown key profile ignored"}, c.Warnings)

			cfg, err := mysql.ParseDSN(c.DSN())
			require.NoError(t, err)
			require.Equal(t, fmt.Sprintf("192.168.1.10:%d", tc.port), cfg.Addr)
			require.Equal(t, "123456", cfg.Passwd)

			for _, s := range []string{c.String(), fmt.Sprintf("%v %+v %#v %v", c, *c, c, c.Warnings)} {
				require.NotContains(t, s, "123456")
			}

			golden.Assert(t, filepath.Join("testdata", tc.file+".golden"), []byte(describe(t, c)))
		})
	}
}

// seedWith is seed 000's props.conf with the connection pointed at the
// local MariaDB (root, empty password) and database db.
func seedWith(t *testing.T, db string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "props.conf"))
	require.NoError(t, err)
	s := strings.Replace(string(raw), "192.168.1.10:3306/tpcc", testenv.MariaDBAddr()+"/"+db, 1)
	s = strings.Replace(s, "password=123456", "password=", 1)
	return s
}

func TestSeedPropsAgainstMariaDB(t *testing.T) {
	const dbName = "walab_test_tpcc_props"
	testenv.MariaDB(t, dbName) // creates the database fresh
	c, err := Parse(strings.NewReader(seedWith(t, dbName)))
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1", c.URL.Host)

	db, err := sql.Open("mysql", c.DSN())
	require.NoError(t, err)
	defer db.Close()
	ctx := context.Background()
	var cur string
	require.NoError(t, db.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&cur))
	require.Equal(t, dbName, cur)

	// The props drive the workload: nothing is loaded yet, so a run is
	// refused with a pointer to prepare, and cleanup is harmless.
	w, err := tpcc.New(c.TPCCOptions())
	require.NoError(t, err)
	require.ErrorContains(t, w.Init(ctx, db), "prepare")
	require.NoError(t, w.Cleanup(ctx, db))
}

func TestParseValues(t *testing.T) {
	base := map[string]string{
		"db": "mysql", "driver": "com.mysql.cj.jdbc.Driver", "conn": "jdbc:mysql://127.0.0.1:3306/tpcc",
		"user": "root", "password": "pw-Secret", "warehouses": "10", "terminals": "20", "runMins": "5",
	}
	render := func(over map[string]string, drop ...string) string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range over {
			m[k] = v
		}
		for _, k := range drop {
			delete(m, k)
		}
		var b strings.Builder
		for _, k := range []string{"db", "driver", "conn", "user", "password", "warehouses", "loadWorkers", "terminals",
			"terminalWarehouseFixed", "runMins", "runTxnsPerTerminal", "limitTxnsPerMin", "newOrderWeight", "paymentWeight",
			"orderStatusWeight", "deliveryWeight", "stockLevelWeight", "keyingTimeMultiplier", "thinkTimeMultiplier",
			"resultDirectory", "osCollectorScript", "fooKey"} {
			if v, ok := m[k]; ok {
				fmt.Fprintf(&b, "%s=%s\n", k, v)
			}
		}
		return b.String()
	}
	weights := func(no, p, os, d, sl string) map[string]string {
		return map[string]string{"newOrderWeight": no, "paymentWeight": p, "orderStatusWeight": os, "deliveryWeight": d, "stockLevelWeight": sl}
	}
	for _, tc := range []struct {
		name  string
		over  map[string]string
		drop  []string
		err   string
		warn  string
		check func(*testing.T, *Config)
	}{
		{name: "minimal", check: func(t *testing.T, c *Config) {
			require.Equal(t, 4, c.LoadWorkers, "BenchmarkSQL default")
			require.Equal(t, tpcc.DefaultWeights, c.Weights)
			require.False(t, c.TerminalWarehouseFixed)
		}},
		{name: "custom weights", over: weights("50", "40", "4", "3", "3"), check: func(t *testing.T, c *Config) {
			require.Equal(t, tpcc.Weights{NewOrder: 50, Payment: 40, OrderStatus: 4, Delivery: 3, StockLevel: 3}, c.Weights)
		}},
		{name: "weights over 100", over: weights("46", "43", "4", "4", "4"), err: "sum to 101, must be 100"},
		{name: "weights under 100", over: weights("40", "43", "4", "4", "4"), err: "sum to 95"},
		{name: "weight missing", over: map[string]string{"paymentWeight": "43"}, err: "newOrderWeight: missing"},
		{name: "weight negative", over: weights("-1", "43", "4", "4", "4"), err: "newOrderWeight=-1: must be at least 0"},
		{name: "weight not a number", over: weights("45", "4x", "4", "4", "4"), err: `paymentWeight="4x": not an integer`},
		{name: "both run lengths", over: map[string]string{"runTxnsPerTerminal": "100"}, err: "exactly one may be non-zero"},
		{name: "txns per terminal", over: map[string]string{"runMins": "0", "runTxnsPerTerminal": "100"}, check: func(t *testing.T, c *Config) {
			require.Equal(t, 100, c.RunTxnsPerTerminal)
		}},
		{name: "neither run length", over: map[string]string{"runMins": "0"}, warn: "both 0"},
		{name: "warehouses zero", over: map[string]string{"warehouses": "0"}, err: "warehouses=0: must be at least 1"},
		{name: "warehouses missing", drop: []string{"warehouses"}, err: "warehouses: missing"},
		{name: "warehouses text", over: map[string]string{"warehouses": "many"}, err: `warehouses="many": not an integer`},
		{name: "warehouses with spaces", over: map[string]string{"warehouses": " 12 "}, check: func(t *testing.T, c *Config) {
			require.Equal(t, 12, c.Warehouses)
		}},
		{name: "too many terminals", over: map[string]string{"terminals": "101"}, err: "at most 10 per warehouse"},
		{name: "loadWorkers zero", over: map[string]string{"loadWorkers": "0"}, err: "loadWorkers=0"},
		{name: "limit negative", over: map[string]string{"limitTxnsPerMin": "-1"}, err: "limitTxnsPerMin=-1"},
		{name: "fixed yes", over: map[string]string{"terminalWarehouseFixed": "yes"}, err: `terminalWarehouseFixed="yes": want true or false`},
		{name: "fixed TRUE", over: map[string]string{"terminalWarehouseFixed": "TRUE"}, check: func(t *testing.T, c *Config) {
			require.True(t, c.TerminalWarehouseFixed)
		}},
		{name: "postgres", over: map[string]string{"db": "postgres"}, err: "MySQL and MariaDB only"},
		{name: "db missing", drop: []string{"db"}, warn: "assuming db=mysql"},
		{name: "odd driver", over: map[string]string{"driver": "org.postgresql.Driver"}, warn: "not a MySQL/MariaDB JDBC driver"},
		{name: "conn missing", drop: []string{"conn"}, err: "conn: missing"},
		{name: "conn bad", over: map[string]string{"conn": "jdbc:mysql://h:0/d?password=pw-Secret"}, err: "port"},
		{name: "user missing", drop: []string{"user"}, err: "user: missing"},
		{name: "user from url", drop: []string{"user", "password"}, over: map[string]string{"conn": "jdbc:mysql://h/d?user=u&password=pw-Secret"},
			check: func(t *testing.T, c *Config) {
				require.Equal(t, "u", c.User)
				require.Equal(t, "pw-Secret", c.Password)
			}},
		{name: "ignored keys", over: map[string]string{"resultDirectory": "my_result_%tY", "osCollectorScript": "./misc/os_collector_linux.py"},
			warn: "resultDirectory ignored"},
		{name: "unknown key", over: map[string]string{"fooKey": "1"}, warn: "unknown key fooKey ignored"},
		{name: "multipliers", over: map[string]string{"keyingTimeMultiplier": "0.5", "thinkTimeMultiplier": "1"}, check: func(t *testing.T, c *Config) {
			o := c.TPCCOptions()
			require.True(t, o.KeyingTimes)
			require.True(t, o.ThinkTimes)
			require.Equal(t, 0.5, o.KeyingTimeMultiplier)
		}},
		{name: "multiplier bad", over: map[string]string{"thinkTimeMultiplier": "-2"}, err: "thinkTimeMultiplier"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(strings.NewReader(render(tc.over, tc.drop...)))
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				require.NotContains(t, err.Error(), "pw-Secret", "the password never appears in errors")
				return
			}
			require.NoError(t, err)
			require.NotContains(t, c.String()+strings.Join(c.Warnings, "\n"), "pw-Secret")
			if tc.warn != "" {
				require.Contains(t, strings.Join(c.Warnings, "\n"), tc.warn)
			}
			if tc.check != nil {
				tc.check(t, c)
			}
		})
	}
}

func TestDuplicateKeyWarns(t *testing.T) {
	c, err := Parse(strings.NewReader("conn=jdbc:mysql://h/d\nuser=a\nwarehouses=1\nwarehouses=2\nrunMins=1\n"))
	require.NoError(t, err)
	require.Equal(t, 2, c.Warehouses, "the last one wins, as in Java")
	require.Contains(t, c.Warnings, "line 4: warehouses repeats line 3: the last one wins")
}
