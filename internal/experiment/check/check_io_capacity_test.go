package check

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
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
	p := &plan.Plan{Targets: []plan.Target{{Name: "m", DSN: dsn}}, Runs: []plan.Run{{Name: "disk", Fio: "fio --name=x"}, {Name: "sb", Workload: "fileio"}, {Name: "oltp", Workload: "tpcc"}}}
	c := plan.Check{Check: "io_capacity", Targets: []string{"m"}, IOPSFrom: "disk"}
	require.Empty(t, Kinds()["io_capacity"](p, c))
	e := &Env{Plan: p, State: &state.State{}}
	_, err := Run(context.Background(), e, c, &plan.Run{Name: "disk"})
	require.ErrorIs(t, err, ErrNotRun, "nothing measured yet")

	// The reads beside the writes are not the disk's write IOPS.
	fioRun := func(iops float64) state.RunRecord {
		return state.RunRecord{Run: "disk", Fio: &state.FioRecord{Jobs: []fio.Job{{Read: fio.Dir{IOPS: 5 * iops}, Write: fio.Dir{IOPS: iops / 2}}, {Write: fio.Dir{IOPS: iops / 2}}}}}
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
		e.State.Runs = []state.RunRecord{fioRun(tc.iops), fioRun(tc.iops)}
		got, err := Run(context.Background(), e, c, &plan.Run{Name: "oltp"})
		if tc.pass {
			require.NoError(t, err)
			require.Contains(t, got, tc.want)
			require.Contains(t, got, "(mean of 2)")
		} else {
			require.ErrorContains(t, err, tc.want)
			require.ErrorContains(t, err, "want 0.50..1.50 x")
		}
	}
	// loadgen fileio: its write requests per second, not its events (TPS
	// counts its reads and fsyncs too); a record without a write figure
	// (written before there was one) is not measured.
	tps, writes := 7*capacity, 2*capacity
	e.State.Runs = []state.RunRecord{{Run: "sb", TPS: &tps}}
	fileio := plan.Check{Check: "io_capacity", Targets: []string{"m"}, IOPSFrom: "sb"}
	_, err = Run(context.Background(), e, fileio, &plan.Run{Name: "oltp"})
	require.ErrorIs(t, err, ErrNotRun)
	e.State.Runs = []state.RunRecord{{Run: "sb", TPS: &tps, WriteIOPS: &writes}}
	got, err := Run(context.Background(), e, fileio, &plan.Run{Name: "oltp"})
	require.NoError(t, err)
	require.Contains(t, got, "is 1.00 x half the")

	// A thread sweep (seed 004's test and seed 002's concurrency sweep):
	// the peak, the mean of the repetitions at the best thread count, not
	// the mean over the sweep (which would read 0.62 x here and pass).
	sweep := func(th int, iops float64) state.RunRecord { r := fioRun(iops); r.Threads = th; return r }
	e.State.Runs = []state.RunRecord{sweep(1, capacity/4), sweep(4, capacity), sweep(16, 8*capacity), sweep(16, 4*capacity), sweep(64, 3*capacity)}
	_, err = Run(context.Background(), e, c, &plan.Run{Name: "oltp"})
	require.ErrorContains(t, err, "is 0.33 x half the")
	require.ErrorContains(t, err, "(the peak of 4 thread counts, at 16 threads, mean of 2)")
	e.State.Runs = []state.RunRecord{sweep(1, capacity/4), sweep(16, 2*capacity), sweep(64, capacity)}
	got, err = Run(context.Background(), e, c, &plan.Run{Name: "oltp"})
	require.NoError(t, err)
	require.Contains(t, got, "is 1.00 x half the")
	require.Contains(t, got, "at 16 threads, mean of 1")

	for _, tc := range []struct {
		c    plan.Check
		want string
	}{
		{plan.Check{Check: "io_capacity", Targets: []string{"m"}}, "iops_from missing"},
		{plan.Check{Check: "io_capacity", Targets: []string{"m"}, IOPSFrom: "oltp"}, `iops_from "oltp": not a fio or loadgen fileio run`},
		{plan.Check{Check: "io_capacity", Targets: []string{"m"}, IOPSFrom: "nope"}, `iops_from "nope": no such run`},
		{plan.Check{Check: "io_capacity", IOPSFrom: "disk"}, "targets missing"},
	} {
		require.Contains(t, strings.Join(Kinds()["io_capacity"](p, tc.c), "; "), tc.want)
	}
}
