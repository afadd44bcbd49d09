package cli

import (
	"context"
	"database/sql"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/workload"
)

// fakeSQL is an SQL workload that is never run: for the targets' plans.
type fakeSQL struct{}

func (fakeSQL) Name() string                                                    { return "fake" }
func (fakeSQL) TxTypes() []string                                               { return []string{"t"} }
func (fakeSQL) Prepare(context.Context, *sql.DB, workload.PrepareOptions) error { return nil }
func (fakeSQL) Check(context.Context, *sql.DB) ([]workload.CheckResult, error)  { return nil, nil }
func (fakeSQL) Cleanup(context.Context, *sql.DB) error                          { return nil }
func (fakeSQL) NewTerminal(int, *rand.Rand) workload.SQLTerminal                { return nil }

// fakeLocal is a local workload that is never run.
type fakeLocal struct{}

func (fakeLocal) Name() string                                  { return "fake_local" }
func (fakeLocal) TxTypes() []string                             { return []string{"t"} }
func (fakeLocal) NewTerminal(int, *rand.Rand) workload.Terminal { return nil }

// TestFactoryKinds: a registration's factory builds a local workload or an
// SQL one, never neither or both; a local workload that lists phases
// besides run has to have them.
func TestFactoryKinds(t *testing.T) {
	local := func(workload.Target) (workload.Workload, error) { return fakeLocal{}, nil }
	onDB := func(workload.Target) (workload.SQL, error) { return fakeSQL{}, nil }
	require.ErrorContains(t, (&command{spec: workload.Spec{Name: "x"}}).checkFactory(), "workload x: its factory must set Local or SQL")
	require.ErrorContains(t, (&command{factory: workload.Factory{Local: local, SQL: onDB}}).checkFactory(), "one only")

	f, _, _, err := parse(strings.Fields("oltp_point_select run"), io.Discard)
	require.NoError(t, err)
	c := &command{spec: workload.Spec{Name: "x", Phases: workload.DefaultPhases}, factory: workload.Factory{Local: local}}
	require.NoError(t, c.checkFactory())
	require.ErrorContains(t, c.build(f, &target{name: "local"}), "workload x lists the phases [prepare run check cleanup] but has no Prepare")
	c.spec.Phases = []string{"run"}
	tg := &target{name: "local"}
	require.NoError(t, c.build(f, tg))
	require.Equal(t, fakeLocal{}, tg.run.Workload)
	require.Nil(t, tg.run.SQL)
}

// TestPlanConns: the raw read plan counts the terminals of the database
// targets and leaves the process's GOMAXPROCS alone (execute applies it);
// blocking sockets are the default for a few terminals of a sysbench
// workload, the poller for tpcc and for many terminals, and the user's
// --mysql-blocking-io either way overrides it.
func TestPlanConns(t *testing.T) {
	parsed := func(args string) *flags {
		f, _, _, err := parse(strings.Fields(args), io.Discard)
		require.NoError(t, err)
		return f
	}
	f := parsed("oltp_point_select run --threads=6")
	before := runtime.GOMAXPROCS(0)
	tcp := func(name string, threads int) *target {
		tg := &target{name: name, dsn: "root@tcp(127.0.0.1:3306)/x", sql: fakeSQL{}}
		tg.run.Threads, tg.workers = threads, 1
		return tg
	}
	plan := planConns(f, false, []*target{tcp("a", 6), tcp("b", 6), {name: "local", wl: fakeLocal{}}}, false, 2, 4)
	require.True(t, plan.blocking, "12 terminals on 4 CPUs")
	require.Equal(t, 14, plan.procs, "6 terminals on each of two targets, one P for the runner, one for the GC")
	require.Equal(t, 2*time.Millisecond, plan.opts.RawReadWait)
	require.Equal(t, before, runtime.GOMAXPROCS(0))

	plan = planConns(f, false, []*target{tcp("a", 6)}, true, 2, 4)
	require.Equal(t, connPlan{blocking: true, procs: 2}, plan, "the user's GOMAXPROCS is kept, and reads go through the runtime")

	require.Equal(t, connPlan{procs: 2}, planConns(f, false, []*target{tcp("a", 17)}, false, 2, 4),
		"17 terminals on 4 CPUs: the poller, Ps unchanged")
	require.Equal(t, connPlan{procs: 2}, planConns(f, true, []*target{tcp("a", 6)}, false, 2, 4),
		"a workload that prefers the poller (tpcc)")

	on := parsed("oltp_point_select run --mysql-blocking-io")
	plan = planConns(on, true, []*target{tcp("a", 330)}, false, 2, 4)
	require.Equal(t, connPlan{blocking: true, procs: 2}, plan, "asked for: blocking sockets, too many terminals for raw reads")
	off := parsed("oltp_point_select run --no-mysql-blocking-io")
	require.Equal(t, connPlan{procs: 2}, planConns(off, false, []*target{tcp("a", 6)}, false, 2, 4))
}

// TestBlockingFor: the default's bound, on both sides.
func TestBlockingFor(t *testing.T) {
	require.True(t, blockingFor(false, 8, 2))
	require.False(t, blockingFor(false, 9, 2))
	require.True(t, blockingFor(false, 4, 0), "an unknown CPU count counts as one")
	require.False(t, blockingFor(true, 1, 64), "tpcc")
}
