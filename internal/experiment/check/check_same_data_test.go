package check

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
	"github.com/walab/walab/internal/testenv"
)

// TestChecksumBudget: same_data's budget grows with the data, twice
// CHECKSUM TABLE's read at 100 MB/s: 4 h 27 min for seed 000's 4,050
// warehouses, about 800 GB in both instances (docs/seed000-nvme.md).
func TestChecksumBudget(t *testing.T) {
	for _, tc := range []struct {
		bytes float64
		want  time.Duration
	}{{0, 0}, {300e9, 100 * time.Minute}, {800e9, 4*time.Hour + 26*time.Minute + 40*time.Second}} {
		require.Equal(t, tc.want, checksumBudget(tc.bytes))
	}
}

// TestSameDataCheck: two targets restored from one backup pass; a target
// with other rows fails before the baseline, and an arm whose data differs
// from the other arm's fails before the candidate.
func TestSameDataCheck(t *testing.T) {
	db1, dsn1 := testenv.MariaDB(t, "h_nvme_same1")
	db2, dsn2 := testenv.MariaDB(t, "h_nvme_same2")
	load := func(extra string) {
		for _, q := range []string{"DROP TABLE IF EXISTS w", "CREATE TABLE w (id INT PRIMARY KEY, name VARCHAR(10))", "INSERT INTO w VALUES (1,'a'),(2,'b')"} {
			_, err := db1.Exec(q)
			require.NoError(t, err)
			_, err = db2.Exec(q)
			require.NoError(t, err)
		}
		if extra != "" {
			_, err := db2.Exec(extra)
			require.NoError(t, err)
		}
	}
	p := &plan.Plan{Targets: []plan.Target{{Name: "mysql-1", DSN: dsn1}, {Name: "mysql-2", DSN: dsn2}}}
	e := &Env{Plan: p, State: &state.State{}}
	c := plan.Check{Check: "same_data", Targets: []string{"mysql-1", "mysql-2"}}
	ctx := context.Background()

	load("UPDATE w SET name = 'c' WHERE id = 2")
	e.Setup = "baseline/"
	_, err := Run(ctx, e, c, nil)
	require.ErrorContains(t, err, "target mysql-2 holds other data (1 tables, checksum ")
	require.ErrorContains(t, err, "the reset did not restore the same backup into both")

	load("")
	got, err := Run(ctx, e, c, nil)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(got, "mysql-1, mysql-2: 1 tables, checksum "), got)

	e.Setup = "streams/"
	got, err = Run(ctx, e, c, nil)
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(got, ", as at baseline's checks"), got)

	_, err = db1.Exec("INSERT INTO w VALUES (3,'x')")
	require.NoError(t, err)
	_, err = db2.Exec("INSERT INTO w VALUES (3,'x')")
	require.NoError(t, err)
	_, err = Run(ctx, e, c, nil)
	require.ErrorContains(t, err, "at its checks: the arms do not start from the same data")
}
