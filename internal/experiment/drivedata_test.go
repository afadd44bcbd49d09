package experiment

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment/plan"
)

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
