package experiment

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment/check"
	"github.com/walab/walab/internal/fio"
	"github.com/walab/walab/internal/testenv"
)

// TestIOCapacityCheck: seed 004's rule, innodb_io_capacity about half the
// IOPS the plan's own fio or fileio run measured: not run before that run
// has a counted repetition, passes at half, fails at a tenth (MySQL's 200
// on an SSD) and at twice the half.
func TestIOCapacityCheck(t *testing.T) {
	db, dsn := testenv.MariaDB(t, "walab_test_io_capacity")
	var capacity float64
	require.NoError(t, db.QueryRow("SELECT @@innodb_io_capacity").Scan(&capacity))
	p := &Plan{Targets: []Target{{Name: "m", DSN: dsn}}, Runs: []Run{{Name: "disk", Fio: "fio --name=x"}, {Name: "sb", Workload: "fileio"}, {Name: "oltp", Workload: "tpcc"}}}
	c := Check{Check: "io_capacity", Targets: []string{"m"}, IOPSFrom: "disk"}
	require.Empty(t, CheckKinds()["io_capacity"](p, c))
	e := &Executor{Plan: p, state: &State{}}
	_, err := check.Run(context.Background(), e.checkEnv(), c, &Run{Name: "disk"})
	require.ErrorIs(t, err, check.ErrNotRun, "nothing measured yet")

	fioRun := func(iops float64) RunRecord {
		return RunRecord{Run: "disk", Fio: &FioRecord{Jobs: []fio.Job{{Read: fio.Dir{IOPS: iops / 2}, Write: fio.Dir{IOPS: iops / 2}}}}}
	}
	for _, tc := range []struct {
		iops float64
		pass bool
		want string
	}{
		{2 * capacity, true, "is 1.00 x half the"},
		{20 * capacity, false, "is 0.10 x half the"},
		{capacity, false, "is 2.00 x half the"},
	} {
		e.state.Runs = []RunRecord{fioRun(tc.iops), fioRun(tc.iops)}
		got, err := check.Run(context.Background(), e.checkEnv(), c, &Run{Name: "oltp"})
		if tc.pass {
			require.NoError(t, err)
			require.Contains(t, got, tc.want)
			require.Contains(t, got, "(mean of 2)")
		} else {
			require.ErrorContains(t, err, tc.want)
			require.ErrorContains(t, err, "want 0.50..1.50 x")
		}
	}
	// loadgen fileio: its events per second.
	tps := 2 * capacity
	e.state.Runs = []RunRecord{{Run: "sb", TPS: &tps}}
	got, err := check.Run(context.Background(), e.checkEnv(), Check{Check: "io_capacity", Targets: []string{"m"}, IOPSFrom: "sb"}, &Run{Name: "oltp"})
	require.NoError(t, err)
	require.Contains(t, got, "is 1.00 x half the")

	for _, tc := range []struct {
		c    Check
		want string
	}{
		{Check{Check: "io_capacity", Targets: []string{"m"}}, "iops_from missing"},
		{Check{Check: "io_capacity", Targets: []string{"m"}, IOPSFrom: "oltp"}, `iops_from "oltp": not a fio or loadgen fileio run`},
		{Check{Check: "io_capacity", Targets: []string{"m"}, IOPSFrom: "nope"}, `iops_from "nope": no such run`},
		{Check{Check: "io_capacity", IOPSFrom: "disk"}, "targets missing"},
	} {
		require.Contains(t, strings.Join(CheckKinds()["io_capacity"](p, tc.c), "; "), tc.want)
	}
}
