package oltp

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/walab/walab/internal/workload"
)

// Check verifies, per table, what the scripts preserve: the row count and id
// range (delete_inserts re-inserts the same id, so they stay 1..table-size
// except for oltp_insert and oltp_delete), that the k index agrees with the
// clustered index, and that c and pad keep sysbench's digit pattern.
func (w *Workload) Check(ctx context.Context, db *sql.DB) ([]workload.CheckResult, error) {
	var out []workload.CheckResult
	for t := 1; t <= w.opt.Tables; t++ {
		name := table(t)
		var rows, minID, maxID int64
		err := db.QueryRowContext(ctx, "SELECT COUNT(*), COALESCE(MIN(id),0), COALESCE(MAX(id),0) FROM "+name).Scan(&rows, &minID, &maxID)
		if err != nil {
			return out, fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, w.checkRows(name, rows, minID, maxID))

		if w.opt.CreateSecondary {
			idx := "k_" + strconv.Itoa(t)
			var nPK, nK int64
			var sumPK, sumK sql.NullInt64
			if err := db.QueryRowContext(ctx, "SELECT COUNT(*), SUM(k) FROM "+name+" FORCE INDEX (PRIMARY)").Scan(&nPK, &sumPK); err != nil {
				return out, fmt.Errorf("%s: %w", name, err)
			}
			if err := db.QueryRowContext(ctx, "SELECT COUNT(*), SUM(k) FROM "+name+" FORCE INDEX ("+idx+")").Scan(&nK, &sumK); err != nil {
				return out, fmt.Errorf("%s: %w", name, err)
			}
			ok := nPK == nK && sumPK == sumK
			out = append(out, workload.CheckResult{
				Name:   name + " index " + idx + " agrees with PRIMARY",
				Passed: ok,
				Detail: fmt.Sprintf("PRIMARY: %d rows, sum(k)=%d; %s: %d rows, sum(k)=%d", nPK, sumPK.Int64, idx, nK, sumK.Int64),
			})
		}

		var bad int64
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+name+
			" WHERE c NOT REGEXP '^[0-9]{11}(-[0-9]{11}){9}$' OR pad NOT REGEXP '^[0-9]{11}(-[0-9]{11}){4}$'").Scan(&bad); err != nil {
			return out, fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, workload.CheckResult{
			Name:   name + " c/pad pattern",
			Passed: bad == 0,
			Detail: fmt.Sprintf("%d rows with a malformed c or pad", bad),
		})
	}
	return out, nil
}

func (w *Workload) checkRows(name string, rows, minID, maxID int64) workload.CheckResult {
	size := w.opt.TableSize
	r := workload.CheckResult{Name: name + " rows", Detail: fmt.Sprintf("%d rows, ids %d..%d, --table-size %d", rows, minID, maxID, size)}
	switch w.script {
	case "oltp_insert":
		// Inserts only add rows; a table prepared empty (auto_inc off) may hold any number.
		r.Passed = rows >= size || !w.opt.AutoInc
		r.Name += " >= table-size"
	case "oltp_delete":
		r.Passed = rows <= size && maxID <= size
		r.Name += " <= table-size"
	default:
		r.Passed = rows == size && minID == 1 && maxID == size
		r.Name += " = table-size, ids 1..table-size"
	}
	return r
}
