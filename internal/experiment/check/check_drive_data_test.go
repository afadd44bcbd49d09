package check

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

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
	require.Empty(t, Kinds()["drive_data"](p, c))
	require.Contains(t, strings.Join(Kinds()["drive_data"](p, plan.Check{Check: "drive_data"}), "; "), "paths missing")
	e := &Env{Plan: p, State: &state.State{}}
	run := func(setup string, data, data2 uint64) (string, error) {
		used["/data"], used["/data2"] = data, data2
		e.Setup = setup
		return Run(context.Background(), e, c, &plan.Run{Name: strings.TrimSuffix(setup, "/")})
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
	require.Equal(t, map[string]uint64{"/data": 2 * copy, "/data2": 1 << 20}, e.State.DriveData["baseline/"])
}

// TestCheckBudgetScales: a check's time budget is the plan's timeout when
// it gives one; same_data's grows with the targets' data (information_
// schema's table sizes): 10 minutes at least, twice CHECKSUM TABLE's read
// at 100 MB/s, 4 h 27 min for seed 000's 4,050 warehouses (about 800 GB in
// both instances). Before, it was 10 minutes whatever the data (issue 56).
func TestCheckBudgetScales(t *testing.T) {
	require.Equal(t, 30*time.Second, Budget(context.Background(), nil, plan.Check{Check: "fill"}))
	require.Equal(t, 3*time.Hour, Budget(context.Background(), nil, plan.Check{Check: "same_data", Timeout: plan.Duration(3 * time.Hour)}))
	// The scaling itself: check's TestChecksumBudget.
	// Scaled from a live target: a small database keeps the 10 minutes.
	db, dsn := testenv.MariaDB(t, "walab_test_budget")
	_, err := db.Exec("CREATE TABLE t (a INT PRIMARY KEY)")
	require.NoError(t, err)
	e := &Env{Plan: &plan.Plan{Targets: []plan.Target{{Name: "m", DSN: dsn}}}, State: &state.State{}}
	require.Equal(t, 10*time.Minute, Budget(context.Background(), e, plan.Check{Check: "same_data", Targets: []string{"m"}}))
}
