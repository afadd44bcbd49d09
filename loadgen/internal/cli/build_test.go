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
// targets and leaves the process's GOMAXPROCS alone (execute applies it).
func TestPlanConns(t *testing.T) {
	f, _, _, err := parse(strings.Fields("oltp_point_select run --threads=6"), io.Discard)
	require.NoError(t, err)
	before := runtime.GOMAXPROCS(0)
	tcp := func(name string) *target {
		tg := &target{name: name, dsn: "root@tcp(127.0.0.1:3306)/x", sql: fakeSQL{}}
		tg.run.Threads, tg.workers = 6, 1
		return tg
	}
	plan := planConns(f, []*target{tcp("a"), tcp("b"), {name: "local", wl: fakeLocal{}}}, false, 2)
	require.Equal(t, 14, plan.procs, "6 terminals on each of two targets, one P for the runner, one for the GC")
	require.Equal(t, 2*time.Millisecond, plan.opts.RawReadWait)
	require.Equal(t, before, runtime.GOMAXPROCS(0))

	plan = planConns(f, []*target{tcp("a")}, true, 2)
	require.Equal(t, connPlan{procs: 2}, plan, "the user's GOMAXPROCS is kept, and reads go through the runtime")
	f.blockingIO = false
	require.Equal(t, connPlan{procs: 2}, planConns(f, []*target{tcp("a")}, false, 2))
}
