package lab

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"golang.org/x/sys/unix"
)

// DirtyTable marks a lab database whose restore has not finished: the
// plan's restore step creates it before it loads the backup and drops it
// after (deploy/experiments/seed000-sim.yml). A lab that finds it drops the
// database, so that the plan's prepare step loads it again.
const DirtyTable = "walab_restore_incomplete"

// LockFile is the lab's lock in its work directory, held for its life.
const LockFile = "lab.lock"

// database is one of the lab's two databases on a MySQL/MariaDB instance
// on 127.0.0.1.
type database struct {
	port int
	name string
}

func (d database) String() string { return fmt.Sprintf("%s on 127.0.0.1:%d", d.name, d.port) }

// lockName is the MariaDB user lock a lab holds on a database
// (GET_LOCK, at most 64 characters; a longer name is hashed).
func lockName(db string) string {
	if n := "walab_lab:" + db; len(n) <= 64 {
		return n
	}
	sum := sha256.Sum256([]byte(db))
	return "walab_lab:" + hex.EncodeToString(sum[:20])
}

// session is what the lab holds for its life: its work directory's lock
// file and, per database, a connection holding the database's lock. Each
// instance's pool stays open for the lab's own queries.
type session struct {
	file    *os.File
	servers map[int]*sql.DB
	locks   []heldLock
}

type heldLock struct {
	conn *sql.Conn
	name string
}

// sharedServers opens the session on the servers the lab shares with the
// machine (--mysql.port-*): the databases locked, a half-restored one
// dropped for prepare to load again, and the servers' data directories.
func sharedServers(ctx context.Context, o Options, dbs []database) (*session, []string, error) {
	s, err := openSession(ctx, o.Out, dbs)
	if err != nil {
		return nil, nil, err
	}
	if err := s.cleanDirty(ctx, dbs, o.printf); err != nil {
		s.close()
		return nil, nil, err
	}
	dirs, err := s.dataDirs(ctx, dbs)
	if err != nil {
		s.close()
		return nil, nil, err
	}
	return s, dirs, nil
}

// openSession locks the work directory out, then every database: another
// lab holding one is refused with the connection that holds it. A lab
// killed with -9 loses its connections, and MariaDB releases its locks
// with them.
func openSession(ctx context.Context, out string, dbs []database) (*session, error) {
	s := &session{servers: map[int]*sql.DB{}}
	f, err := os.OpenFile(filepath.Join(out, LockFile), os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o644)
	if err != nil {
		return nil, err
	}
	s.file = f
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		s.close()
		return nil, fmt.Errorf("%s: in use by another walab lab: %w", f.Name(), err)
	}
	_, _ = fmt.Fprintf(f, "%d\n", os.Getpid())
	for _, d := range dbs {
		if err := s.lock(ctx, d); err != nil {
			s.close()
			return nil, err
		}
	}
	return s, nil
}

// server is the pool for the instance on port.
func (s *session) server(port int) (*sql.DB, error) {
	if db := s.servers[port]; db != nil {
		return db, nil
	}
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "tcp", "127.0.0.1:"+strconv.Itoa(port)
	cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout = 5*time.Second, time.Minute, time.Minute
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(c)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("MySQL/MariaDB on 127.0.0.1:%d: %w (bash scripts/setup.sh installs and starts MariaDB)", port, err)
	}
	s.servers[port] = db
	return db, nil
}

func (s *session) lock(ctx context.Context, d database) error {
	db, err := s.server(d.port)
	if err != nil {
		return err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", d, err)
	}
	name := lockName(d.name)
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, 0)", name).Scan(&got); err != nil {
		conn.Close()
		return fmt.Errorf("%s: lock %s: %w", d, name, err)
	}
	if got.Int64 != 1 {
		var holder sql.NullInt64
		_ = conn.QueryRowContext(ctx, "SELECT IS_USED_LOCK(?)", name).Scan(&holder)
		conn.Close()
		return fmt.Errorf("database %s is in use by another walab lab (MariaDB connection %d holds lock %s): "+
			"wait for it, or give this lab other --mysql.db-1/--mysql.db-2", d, holder.Int64, name)
	}
	s.locks = append(s.locks, heldLock{conn, name})
	return nil
}

// close releases the databases' locks and the lock file (which stays).
func (s *session) close() {
	for _, l := range s.locks {
		_, _ = l.conn.ExecContext(context.Background(), "DO RELEASE_LOCK(?)", l.name)
		l.conn.Close()
	}
	for _, db := range s.servers {
		db.Close()
	}
	if s.file != nil {
		s.file.Close() // and with it the flock
	}
}

// cleanDirty drops each of dbs that a restore left dirty (DirtyTable),
// saying so with printf: half a backup is not a dataset, and the plan's
// prepare step loads a missing database again.
func (s *session) cleanDirty(ctx context.Context, dbs []database, printf func(string, ...any)) error {
	for _, d := range dbs {
		db, err := s.server(d.port)
		if err != nil {
			return err
		}
		var n int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = ?",
			d.name, DirtyTable).Scan(&n); err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
		if n == 0 {
			continue
		}
		printf("lab: database %s was left half-restored (table %s: a restore was interrupted); dropping it, the plan's prepare loads it again", d, DirtyTable)
		if _, err := db.ExecContext(ctx, "DROP DATABASE "+quoteIdent(d.name)); err != nil {
			return fmt.Errorf("%s: drop the half-restored database: %w", d, err)
		}
	}
	return nil
}

// dataDirs are the instances' data directories (@@datadir), each once:
// the directories whose filesystems the exporter's host facts describe.
func (s *session) dataDirs(ctx context.Context, dbs []database) ([]string, error) {
	var dirs []string
	seen := map[string]bool{}
	for _, d := range dbs {
		db, err := s.server(d.port)
		if err != nil {
			return nil, err
		}
		var dir string
		if err := db.QueryRowContext(ctx, "SELECT @@datadir").Scan(&dir); err != nil {
			return nil, fmt.Errorf("127.0.0.1:%d: @@datadir: %w", d.port, err)
		}
		if dir = filepath.Clean(dir); !filepath.IsAbs(dir) {
			return nil, fmt.Errorf("127.0.0.1:%d: @@datadir %q is not an absolute path", d.port, dir)
		}
		if !seen[dir] {
			seen[dir] = true
			dirs = append(dirs, dir)
		}
	}
	if len(dirs) == 0 {
		return nil, errors.New("no data directory")
	}
	return dirs, nil
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
