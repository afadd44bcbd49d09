// Package testenv gives integration tests the real services they need:
// the machine's MariaDB, a second mariadbd of the test's own, and binaries
// such as promtool. Under CI=true a missing service fails the test; elsewhere
// it skips, so a laptop without MariaDB can still run the unit tests. With
// -short every test that needs one of them skips, under CI=true too: `go
// test -short ./...` needs neither root nor a service.
package testenv

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql" // driver for sql.Open("mysql")

	"github.com/walab/walab/internal/service"
)

// CI reports whether the tests run under CI (CI=true).
func CI() bool { return os.Getenv("CI") == "true" }

// Missing fails under CI and skips elsewhere; with -short it skips even
// under CI (the user asked for the tests that need no service and no root).
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if CI() && !testing.Short() {
		t.Fatalf("required by this test under CI=true: %s", msg)
	}
	t.Skipf("skipping: %s", msg)
}

// skipShort skips a test that needs a service, a tool or root when the
// tests run with -short: `go test -short ./...` needs neither root nor
// anything installed beyond Go.
func skipShort(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: needs %s", what)
	}
}

// RequireBinary returns the path of a binary on PATH, or fails/skips;
// with -short it skips.
func RequireBinary(t testing.TB, name string) string {
	t.Helper()
	skipShort(t, name)
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, "%s not on PATH (make test installs it)", name)
	}
	return p
}

// DefaultMariaDBAddr is the machine's MariaDB (root, empty password).
const DefaultMariaDBAddr = "127.0.0.1:3306"

// MariaDBAddr is WALAB_TEST_MYSQL_ADDR or the default.
func MariaDBAddr() string {
	if a := os.Getenv("WALAB_TEST_MYSQL_ADDR"); a != "" {
		return a
	}
	return DefaultMariaDBAddr
}

// DSN builds a go-sql-driver DSN for root on addr.
func DSN(addr, db string) string {
	return fmt.Sprintf("root@tcp(%s)/%s?parseTime=true&timeout=5s&readTimeout=30s&writeTimeout=30s", addr, db)
}

// MariaDB opens the machine's MariaDB, creating database db (if not empty)
// fresh for this test. Each package must use its own database names: go test
// runs packages in parallel against the same server.
func MariaDB(t testing.TB, db string) (*sql.DB, string) {
	t.Helper()
	skipShort(t, "the machine's MariaDB")
	addr := MariaDBAddr()
	if err := ping(addr, 5*time.Second); err != nil {
		Missing(t, "MariaDB at %s: %v", addr, err)
	}
	return prepare(t, addr, db)
}

func prepare(t testing.TB, addr, db string) (*sql.DB, string) {
	t.Helper()
	if db != "" {
		admin, err := sql.Open("mysql", DSN(addr, ""))
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close()
		for _, q := range []string{"DROP DATABASE IF EXISTS `" + db + "`", "CREATE DATABASE `" + db + "`"} {
			if _, err := admin.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		t.Cleanup(func() { dropDatabase(t, addr, db) })
	}
	dsn := DSN(addr, db)
	conn, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn, dsn
}

// dropDatabase removes a test's database when the test ends, so that the
// tests leave nothing on the machine's MariaDB. A server the test stopped
// or killed is not an error here: its data goes with it.
func dropDatabase(t testing.TB, addr, db string) {
	admin, err := sql.Open("mysql", DSN(addr, "")+"&timeout=2s")
	if err != nil {
		return
	}
	defer admin.Close()
	if _, err := admin.Exec("DROP DATABASE IF EXISTS `" + db + "`"); err != nil {
		t.Logf("cleanup: drop database %s on %s: %v", db, addr, err)
	}
}

func ping(addr string, within time.Duration) error {
	deadline := time.Now().Add(within)
	var err error
	for time.Now().Before(deadline) {
		var db *sql.DB
		db, err = sql.Open("mysql", DSN(addr, "")+"&timeout=1s")
		if err == nil {
			err = db.Ping()
			db.Close()
			if err == nil {
				return nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return err
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	port, err := service.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return port
}
