package oltp

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/walab/walab/internal/workload"
)

// Workload is one sysbench OLTP script over Options.
type Workload struct {
	script string
	opt    Options
	dist   Dist
}

// New validates the options for script.
func New(script string, opt Options) (*Workload, error) {
	if err := opt.validate(script); err != nil {
		return nil, err
	}
	d, err := NewDist(opt.Rand, opt.TableSize)
	if err != nil {
		return nil, err
	}
	return &Workload{script: script, opt: opt, dist: d}, nil
}

var _ workload.SQL = (*Workload)(nil)

// Name is the script name.
func (w *Workload) Name() string { return w.script }

// TxTypes: sysbench has one event per script; its label is the script.
func (w *Workload) TxTypes() []string { return []string{w.script} }

func table(i int) string { return "sbtest" + strconv.Itoa(i) }

// Prepare creates and loads sbtest1..N with up to opts.Workers tables
// loading at once (sysbench parallelises over tables the same way), then
// creates the k index after the load as sysbench 1.0 does.
//
// Resuming: rows are inserted in id order by autocommitted multi-row
// INSERTs, so a table interrupted mid-load holds exactly ids 1..max(id);
// Prepare continues from max(id)+1 and creates a missing k index. A table
// that does not look like that (rows != max(id), or more rows than
// --table-size) is refused with an error that says to run cleanup.
func (w *Workload) Prepare(ctx context.Context, db *sql.DB, opts workload.PrepareOptions) error {
	workers := max(opts.Workers, 1)
	total := int64(w.opt.Tables) * w.opt.TableSize
	var done atomic.Int64
	var progMu sync.Mutex
	report := func(n int64) {
		v := done.Add(n)
		if opts.Progress != nil {
			progMu.Lock()
			opts.Progress(workload.ProgressEvent{Rows: v, TotalRows: total})
			progMu.Unlock()
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	errs := make(chan error, w.opt.Tables)
	var wg sync.WaitGroup
	for range min(workers, w.opt.Tables) {
		wg.Go(func() {
			for t := range jobs {
				if err := w.prepareTable(ctx, db, t, report); err != nil {
					errs <- fmt.Errorf("%s: %w", table(t), err)
					cancel()
				}
			}
		})
	}
feed:
	for t := 1; t <= w.opt.Tables; t++ {
		select {
		case jobs <- t:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	return ctx.Err()
}

func (w *Workload) prepareTable(ctx context.Context, db *sql.DB, t int, report func(int64)) error {
	name := table(t)
	autoInc := ""
	if w.opt.AutoInc {
		autoInc = " AUTO_INCREMENT"
	}
	ddl := fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s(\n  id INTEGER NOT NULL%s,\n  k INTEGER DEFAULT '0' NOT NULL,\n"+
		"  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n) ENGINE = %s",
		name, autoInc, w.opt.StorageEngine)
	if _, err := db.ExecContext(ctx, ddl); err != nil {
		return err
	}
	var rows, maxID int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*), COALESCE(MAX(id),0) FROM "+name).Scan(&rows, &maxID); err != nil {
		return err
	}
	if rows != maxID || rows > w.opt.TableSize {
		return fmt.Errorf("half-loaded table does not match --table-size %d (%d rows, max id %d): run cleanup, then prepare",
			w.opt.TableSize, rows, maxID)
	}
	report(rows)
	// oltp_insert without auto_inc starts from empty tables, as in sysbench.
	if !(w.script == "oltp_insert" && !w.opt.AutoInc) {
		if err := w.load(ctx, db, t, rows+1, report); err != nil {
			return err
		}
	}
	if w.opt.CreateSecondary {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.statistics "+
			"WHERE table_schema = DATABASE() AND table_name = ? AND index_name = ?", name, "k_"+strconv.Itoa(t)).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			if _, err := db.ExecContext(ctx, fmt.Sprintf("CREATE INDEX k_%d ON %s(k)", t, name)); err != nil {
				return err
			}
		}
	}
	return nil
}

// bulkPacket is sysbench's BULK_PACKET_SIZE: the size of one multi-row INSERT.
const bulkPacket = 512 << 10

func (w *Workload) load(ctx context.Context, db *sql.DB, t int, from int64, report func(int64)) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	rng := rand.New(rand.NewPCG(uint64(t), uint64(from)))
	head := "INSERT INTO " + table(t) + "(id, k, c, pad) VALUES "
	buf := make([]byte, 0, bulkPacket+1024)
	var n int64
	flush := func() error {
		if n == 0 {
			return nil
		}
		if _, err := conn.ExecContext(ctx, string(buf)); err != nil {
			return err
		}
		report(n)
		n = 0
		return nil
	}
	for id := from; id <= w.opt.TableSize; id++ {
		if n == 0 {
			buf = append(buf[:0], head...)
		} else {
			buf = append(buf, ',')
		}
		buf = append(buf, '(')
		buf = strconv.AppendInt(buf, id, 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, w.dist.Next(rng), 10)
		buf = append(buf, ",'"...)
		buf = appendC(buf, rng)
		buf = append(buf, "','"...)
		buf = appendPad(buf, rng)
		buf = append(buf, "')"...)
		n++
		if len(buf) >= bulkPacket-256 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// Cleanup drops sbtest1..N.
func (w *Workload) Cleanup(ctx context.Context, db *sql.DB) error {
	for t := 1; t <= w.opt.Tables; t++ {
		if _, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS "+table(t)); err != nil {
			return err
		}
	}
	return nil
}
