package collector

import (
	"bytes"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/innodb"
	"github.com/walab/walab/internal/testenv"
)

// innodbSet builds just the innodb collector from a YAML config.
func innodbSet(t *testing.T, yml string, logs *bytes.Buffer) *prometheus.Registry {
	t.Helper()
	cfg, err := config.Parse([]byte(yml))
	require.NoError(t, err)
	var h slog.Handler = slog.DiscardHandler
	if logs != nil {
		h = slog.NewTextHandler(&syncWriter{w: logs}, &slog.HandlerOptions{Level: slog.LevelDebug})
	}
	set, err := New(Env{Logger: slog.New(h), Config: cfg}, "innodb")
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	require.NoError(t, reg.Register(set))
	return reg
}

type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// sample returns the value of a metric with the given labels, and whether it exists.
func sample(t *testing.T, reg prometheus.Gatherer, name string, labels map[string]string) (float64, bool) {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.GetMetric() {
			for k, v := range labels {
				if labelValue(m, k) != v {
					continue next
				}
			}
			switch {
			case m.Gauge != nil:
				return m.GetGauge().GetValue(), true
			case m.Counter != nil:
				return m.GetCounter().GetValue(), true
			}
		}
	}
	return 0, false
}

func labelValue(m *dto.Metric, name string) string {
	for _, lp := range m.GetLabel() {
		if lp.GetName() == name {
			return lp.GetValue()
		}
	}
	return ""
}

func TestInnoDBTwoInstances(t *testing.T) {
	_, _ = testenv.MariaDB(t, "")
	second := testenv.StartMariaDB(t)
	db2, _ := second.Open("walab_test_innodb")
	reg := innodbSet(t, fmt.Sprintf(`
innodb:
  timeout: 10s
  targets:
    - name: mysql1
      dsn: "root@tcp(%s)/"
    - name: mysql2
      dsn: "root@tcp(%s)/"
`, testenv.MariaDBAddr(), second.Addr), nil)

	for _, target := range []string{"mysql1", "mysql2"} {
		up, ok := sample(t, reg, "walab_mysql_up", map[string]string{"target": target})
		require.True(t, ok)
		require.Equal(t, 1.0, up, target)
		for _, name := range []string{"walab_innodb_data_written_bytes_total", "walab_innodb_lsn_bytes",
			"walab_innodb_checkpoint_age_bytes", "walab_innodb_log_capacity_bytes", "walab_innodb_page_size_bytes",
			"walab_innodb_history_list_length", "walab_innodb_os_log_written_bytes_total"} {
			_, ok := sample(t, reg, name, map[string]string{"target": target})
			require.True(t, ok, "%s{target=%s}", name, target)
		}
		v, ok := sample(t, reg, "walab_innodb_buffer_pool_pages", map[string]string{"target": target, "state": "total"})
		require.True(t, ok)
		require.Positive(t, v)
		ok1, _ := sample(t, reg, "walab_mysql_scraper_success", map[string]string{"target": target, "scraper": "engine_innodb_status"})
		require.Equal(t, 1.0, ok1)
	}

	// Writes on the second instance move its redo and data counters, not the first's settings.
	lsn0, _ := sample(t, reg, "walab_innodb_lsn_bytes", map[string]string{"target": "mysql2"})
	_, err := db2.Exec("CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(255))")
	require.NoError(t, err)
	for i := 0; i < 20; i++ {
		_, err = db2.Exec("INSERT INTO t (v) VALUES " + strings.Repeat("(REPEAT('x',255)),", 99) + "(REPEAT('x',255))")
		require.NoError(t, err)
	}
	lsn1, _ := sample(t, reg, "walab_innodb_lsn_bytes", map[string]string{"target": "mysql2"})
	require.Greater(t, lsn1, lsn0+500000, "2000 rows of 255 bytes must advance the LSN")

	// Explicit transactions on the second instance are its server-side
	// throughput (a client walab does not instrument): 7 COMMITs and 2
	// ROLLBACKs, exactly, on a server nothing else uses.
	com := func(cmd string) float64 {
		v, ok := sample(t, reg, "walab_mysql_commands_total", map[string]string{"target": "mysql2", "command": cmd})
		require.True(t, ok, cmd)
		return v
	}
	c0, r0 := com("commit"), com("rollback")
	q0, ok := sample(t, reg, "walab_mysql_queries_total", map[string]string{"target": "mysql2"})
	require.True(t, ok)
	conn, err := db2.Conn(t.Context())
	require.NoError(t, err)
	defer conn.Close()
	for i := range 9 {
		_, err = conn.ExecContext(t.Context(), "BEGIN")
		require.NoError(t, err)
		_, err = conn.ExecContext(t.Context(), "INSERT INTO t (v) VALUES ('y')")
		require.NoError(t, err)
		end := "COMMIT"
		if i%4 == 3 {
			end = "ROLLBACK"
		}
		_, err = conn.ExecContext(t.Context(), end)
		require.NoError(t, err)
	}
	require.Equal(t, 7.0, com("commit")-c0)
	require.Equal(t, 2.0, com("rollback")-r0)
	q1, _ := sample(t, reg, "walab_mysql_queries_total", map[string]string{"target": "mysql2"})
	require.GreaterOrEqual(t, q1-q0, 27.0, "27 statements sent")
}

func TestInnoDBTargetKilledAndBack(t *testing.T) {
	_, _ = testenv.MariaDB(t, "")
	second := testenv.StartMariaDB(t)
	var logs bytes.Buffer
	reg := innodbSet(t, fmt.Sprintf(`
innodb:
  targets:
    - {name: steady, dsn: "root@tcp(%s)/", timeout: 10s}
    - {name: victim, dsn: "root@tcp(%s)/", timeout: 3s}
`, testenv.MariaDBAddr(), second.Addr), &logs)

	up, _ := sample(t, reg, "walab_mysql_up", map[string]string{"target": "victim"})
	require.Equal(t, 1.0, up)

	// Kill the server while scrapes are running: every scrape completes, none panics.
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 5; j++ {
				if _, err := reg.Gather(); err != nil {
					errs <- err
				}
			}
		}()
	}
	second.Kill()
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	up, _ = sample(t, reg, "walab_mysql_up", map[string]string{"target": "victim"})
	require.Equal(t, 0.0, up)
	steady, _ := sample(t, reg, "walab_mysql_up", map[string]string{"target": "steady"})
	require.Equal(t, 1.0, steady, "a dead target must not affect the others")
	require.Contains(t, logs.String(), "mysql target down")
	require.Equal(t, 1, strings.Count(logs.String(), "mysql target down"), "logged once per state change, not per scrape")

	second.Restart()
	require.Eventually(t, func() bool {
		up, _ := sample(t, reg, "walab_mysql_up", map[string]string{"target": "victim"})
		return up == 1
	}, 30*time.Second, 200*time.Millisecond, "the collector reconnects on its own")
	require.Contains(t, logs.String(), "mysql target is back")
}

func TestInnoDBSlowAndRefusingTargets(t *testing.T) {
	_, _ = testenv.MariaDB(t, "")
	// A loopback listener that accepts and never answers: a hung server.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	cnf := filepath.Join(t.TempDir(), "bad.cnf")
	host, port, _ := net.SplitHostPort(testenv.MariaDBAddr())
	require.NoError(t, os.WriteFile(cnf, []byte("[client]\nuser=walab_nosuch_user\npassword=hunter2\nhost="+host+"\nport="+port+"\n"), 0o600))
	var logs bytes.Buffer
	reg := innodbSet(t, fmt.Sprintf(`
innodb:
  targets:
    - {name: good, dsn: "root@tcp(%s)/", timeout: 10s}
    - {name: hung, dsn: "root@tcp(%s)/", timeout: 1s}
    - {name: refused, my_cnf: %q, timeout: 5s}
`, testenv.MariaDBAddr(), l.Addr(), cnf), &logs)

	for target, want := range map[string]float64{"good": 1, "hung": 0, "refused": 0} {
		up, ok := sample(t, reg, "walab_mysql_up", map[string]string{"target": target})
		require.True(t, ok, target)
		require.Equal(t, want, up, target)
	}
	require.Contains(t, logs.String(), "mysql target refused the login")
	require.NotContains(t, logs.String(), "hunter2", "passwords never reach the log")
	_, ok := sample(t, reg, "walab_innodb_lsn_bytes", map[string]string{"target": "good"})
	require.True(t, ok)
}

func TestInnoDBConfigErrors(t *testing.T) {
	for _, yml := range []string{
		"innodb:\n  targets:\n    - {name: a}\n",
		"innodb:\n  targets:\n    - {name: a, dsn: \"root@tcp(127.0.0.1:1)/\"}\n    - {name: a, dsn: \"root@tcp(127.0.0.1:2)/\"}\n",
		"innodb:\n  targetz: []\n",
	} {
		cfg, err := config.Parse([]byte(yml))
		require.NoError(t, err)
		_, err = New(Env{Config: cfg}, "innodb")
		require.Error(t, err, yml)
	}
}

// TestInnoDBConcurrentScrapesNoFalseDown: many scrapes at once used to
// queue for the target's two connections past the target timeout and
// report a healthy server down (113 times a minute under an unbounded
// scrape flood). Concurrent scrapes of one target now share one read.
func TestInnoDBConcurrentScrapesNoFalseDown(t *testing.T) {
	_, _ = testenv.MariaDB(t, "")
	reg := innodbSet(t, fmt.Sprintf(`
innodb:
  timeout: 1s
  targets:
    - name: mysql1
      dsn: "root@tcp(%s)/"
`, testenv.MariaDBAddr()), nil)
	const scrapers, rounds = 256, 2
	var wg sync.WaitGroup
	var mu sync.Mutex
	down, missing := 0, 0
	for range scrapers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				up, ok := sample(t, reg, "walab_mysql_up", map[string]string{"target": "mysql1"})
				mu.Lock()
				if !ok {
					missing++
				} else if up != 1 {
					down++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	require.Zero(t, missing, "walab_mysql_up missing from a scrape")
	require.Zero(t, down, "scrapes of %d concurrent scrapers x %d rounds reported a healthy target down", scrapers, rounds)
}

// TestInnoDBSeedSettings: the variables the seeds tune are exported from the
// real server as the server reports them (numbers, ON/OFF as 1/0, the rest
// as an info label), follow a SET GLOBAL, and stay within the list.
func TestInnoDBSeedSettings(t *testing.T) {
	inst := testenv.StartMariaDB(t)
	db, _ := inst.Open("walab_test_settings")
	reg := innodbSet(t, fmt.Sprintf("innodb:\n  timeout: 10s\n  targets:\n    - name: m\n      dsn: \"root@tcp(%s)/\"\n", inst.Addr), nil)

	var pool float64
	var method, doublewrite string
	require.NoError(t, db.QueryRow("SELECT @@innodb_buffer_pool_size, @@innodb_flush_method, @@innodb_doublewrite").Scan(&pool, &method, &doublewrite))
	v, ok := sample(t, reg, "walab_mysql_setting", map[string]string{"target": "m", "name": "innodb_buffer_pool_size"})
	require.True(t, ok)
	require.Equal(t, pool, v)
	v, ok = sample(t, reg, "walab_mysql_setting_info", map[string]string{"target": "m", "name": "innodb_flush_method", "value": method})
	require.True(t, ok, "flush method %q as a label", method)
	require.Equal(t, 1.0, v)
	want := 0.0
	if doublewrite == "1" || strings.EqualFold(doublewrite, "ON") {
		want = 1
	}
	v, ok = sample(t, reg, "walab_mysql_setting", map[string]string{"target": "m", "name": "innodb_doublewrite"})
	require.True(t, ok)
	require.Equal(t, want, v)

	_, err := db.Exec("SET GLOBAL innodb_io_capacity = 1234")
	require.NoError(t, err)
	v, ok = sample(t, reg, "walab_mysql_setting", map[string]string{"target": "m", "name": "innodb_io_capacity"})
	require.True(t, ok)
	require.Equal(t, 1234.0, v)

	mfs, err := reg.Gather()
	require.NoError(t, err)
	n := 0
	for _, mf := range mfs {
		if mf.GetName() == "walab_mysql_setting" || mf.GetName() == "walab_mysql_setting_info" {
			for _, m := range mf.GetMetric() {
				require.Contains(t, innodb.SeedVariables, labelValue(m, "name"))
				n++
			}
		}
	}
	require.Greater(t, n, 20, "most seed variables exist on MariaDB")
	require.LessOrEqual(t, n, len(innodb.SeedVariables), "at most one series per variable and target")
}
