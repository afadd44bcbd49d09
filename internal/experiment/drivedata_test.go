package experiment

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment/check"
	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
	"github.com/walab/walab/internal/hostapi"
	"github.com/walab/walab/internal/testenv"
)

// TestDriveDataCheck: drive_data records what each arm holds on each
// namespace's filesystem and fails when the arms' totals differ: the
// candidate that kept an idle third copy on namespace 1 (issue 56) holds
// 50 % more than the baseline.
func TestDriveDataCheck(t *testing.T) {
	used := map[string]uint64{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := hostapi.Facts{Hostname: "dbhost", DataDirs: []string{"/data", "/data2"}}
		for _, p := range []string{"/data", "/data2"} {
			u := used[p]
			f.Mounts = append(f.Mounts, hostapi.Mount{DataDir: p, MountPoint: p, UsedBytes: &u})
		}
		_ = json.NewEncoder(w).Encode(f)
	}))
	defer srv.Close()
	p := &plan.Plan{Exporter: srv.URL}
	c := plan.Check{Check: "drive_data", Paths: []string{"/data", "/data2"}}
	require.Empty(t, CheckKinds()["drive_data"](p, c))
	require.Contains(t, strings.Join(CheckKinds()["drive_data"](p, plan.Check{Check: "drive_data"}), "; "), "paths missing")
	e := &Executor{Plan: p, state: &state.State{}}
	run := func(setup string, data, data2 uint64) (string, error) {
		used["/data"], used["/data2"] = data, data2
		env := e.checkEnv()
		env.Setup = setup
		return check.Run(context.Background(), env, c, &plan.Run{Name: strings.TrimSuffix(setup, "/")})
	}
	const copy = 400 << 30
	got, err := run("baseline/", 2*copy, 1<<20)
	require.NoError(t, err)
	require.Equal(t, "on dbhost: /data 800.0 GiB, /data2 1.0 MiB (800.0 GiB in all)", got)
	// The candidate as the plan had it: instance 2 restored onto namespace
	// 1, then copied to namespace 2.
	_, err = run("namespaces/", 2*copy, copy)
	require.ErrorContains(t, err, "on dbhost: /data 800.0 GiB, /data2 400.0 GiB (1.2 TiB in all), but baseline held /data 800.0 GiB, /data2 1.0 MiB (800.0 GiB in all): the arms do not hold the same data on the drive")
	// As it is now: one copy on each namespace.
	got, err = run("namespaces/", copy+(2<<20), copy)
	require.NoError(t, err)
	require.Equal(t, "on dbhost: /data 400.0 GiB, /data2 400.0 GiB (800.0 GiB in all), as baseline held (800.0 GiB)", got)
	require.Equal(t, map[string]uint64{"/data": 2 * copy, "/data2": 1 << 20}, e.state.DriveData["baseline/"])
}

// TestCheckBudgetScales: a check's time budget is the plan's timeout when
// it gives one; same_data's grows with the targets' data (information_
// schema's table sizes): 10 minutes at least, twice CHECKSUM TABLE's read
// at 100 MB/s, 4 h 27 min for seed 000's 4,050 warehouses (about 800 GB in
// both instances). Before, it was 10 minutes whatever the data (issue 56).
func TestCheckBudgetScales(t *testing.T) {
	require.Equal(t, 30*time.Second, check.Budget(context.Background(), nil, plan.Check{Check: "fill"}))
	require.Equal(t, 3*time.Hour, check.Budget(context.Background(), nil, plan.Check{Check: "same_data", Timeout: plan.Duration(3 * time.Hour)}))
	// The scaling itself: check's TestChecksumBudget.
	// Scaled from a live target: a small database keeps the 10 minutes.
	db, dsn := testenv.MariaDB(t, "walab_test_budget")
	_, err := db.Exec("CREATE TABLE t (a INT PRIMARY KEY)")
	require.NoError(t, err)
	e := &Executor{Plan: &plan.Plan{Targets: []plan.Target{{Name: "m", DSN: dsn}}}, state: &state.State{}}
	require.Equal(t, 10*time.Minute, check.Budget(context.Background(), e.checkEnv(), plan.Check{Check: "same_data", Targets: []string{"m"}}))
}

// TestSeed000NVMePlanArms (issue 56): in seed000-nvme.yml neither arm keeps
// an idle copy (instance 2 is restored by each run's between, onto the
// namespace that arm runs it from), the page cache is dropped after those
// copies, and the host gates seed 000 asked for are checks: drive_data,
// sched_steal (§4.1), nic_channels (§4.3), page_cache (§2.4).
func TestSeed000NVMePlanArms(t *testing.T) {
	raw, err := os.ReadFile("../../deploy/experiments/seed000-nvme.yml")
	require.NoError(t, err)
	p, err := ParseEnv(raw, func(k string) (string, bool) { return "db.example", k == "WALAB_DB_HOST" })
	require.NoError(t, err)
	for _, s := range p.Reset {
		require.NotContains(t, s.Command, "mysql-2/data", "the reset restores no instance 2: %s", s.Name)
	}
	for _, tc := range []struct{ run, to string }{{"baseline", "/data/mysql-2/data/"}, {"namespaces", "/data2/mysql-2/data/"}} {
		var names []string
		copies := 0
		for _, s := range p.RunNamed(tc.run).Between {
			names = append(names, s.Name)
			copies += strings.Count(s.Command, "cp -a ")
		}
		require.Equal(t, []string{"restore-2", "drop-caches", "start"}, names, tc.run)
		require.Equal(t, 1, copies, "%s: one copy of instance 2", tc.run)
		require.Contains(t, p.RunNamed(tc.run).Between[0].Command, "cp -a /bak/. "+tc.to)
	}
	kinds := map[string]plan.Check{}
	for _, c := range p.Checks {
		kinds[c.Check] = c
	}
	require.Equal(t, []string{"/data", "/data2"}, kinds["drive_data"].Paths)
	require.Equal(t, "4", kinds["sched_steal"].Nodes)
	require.Equal(t, "6", kinds["nic_channels"].Expect)
	require.Equal(t, "enp4s0", kinds["nic_channels"].Device)
	require.NotZero(t, kinds["page_cache"].Bytes)
}
