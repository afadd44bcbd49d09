package experiment

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment/plan"
)

// TestRestartEvery: seed 002's method, a restart before every measured
// run, the first of each thread count included, on the database host.
func TestRestartEvery(t *testing.T) {
	p, err := Parse([]byte(`name: s
hosts: {db: {exec: "ssh db"}, client: {}}
targets: [{name: a, dsn: "root@tcp(127.0.0.1:3306)/x"}]
runs:
  - {name: r, workload: oltp_read_write, duration: 10s, targets: [a], repeat: 2, sweep: {threads: [1, 8]}, restart: "systemctl restart mysqld", restart_every: true}
`))
	require.NoError(t, err)
	items, err := plan.Steps(p)
	require.NoError(t, err)
	ids := stepIDs(items)
	for _, it := range items {
		if it.Phase == plan.PhaseRestart {
			argv, err := p.Argv(it, 1, "")
			require.NoError(t, err)
			require.Equal(t, "ssh", argv[0], "a restart runs on the database host")
		}
	}
	require.Equal(t, []string{"r/t1/r1/restart", "r/t1/r1/run", "r/t1/r2/restart", "r/t1/r2/run",
		"r/t8/r1/restart", "r/t8/r1/run", "r/t8/r2/restart", "r/t8/r2/run", "report"}, ids)

	_, err = Parse([]byte("name: s\nreset: [{command: 'true', on: db}, {loadgen: 'tpcc run', on: db}, {command: 'true', on: moon}]\nruns: [{name: r, command: 'true'}]\n"))
	require.ErrorContains(t, err, "on: db needs hosts.db.exec")
	require.ErrorContains(t, err, "loadgen runs on the client")
	require.ErrorContains(t, err, `on "moon": want db or client`)
}

// TestSeed000PlansDropThePageCache (issue 47 item 2): both shipped seed 000
// plans parse and end their reset, before every run, by dropping the page
// cache on the database host, as seed 000 §2.4 does.
func TestSeed000PlansDropThePageCache(t *testing.T) {
	for _, name := range []string{"seed000-sim.yml", "seed000-two-hosts.yml"} {
		b, err := os.ReadFile("../../deploy/experiments/" + name)
		require.NoError(t, err)
		p, err := ParseEnv(b, func(string) (string, bool) { return "", false })
		require.NoError(t, err, name)
		require.NotEmpty(t, p.Reset, name)
		last := p.Reset[len(p.Reset)-1]
		require.Equal(t, "drop-caches", last.Name, name)
		require.Contains(t, last.Command, "echo 3 > /proc/sys/vm/drop_caches", name)
		if name == "seed000-two-hosts.yml" {
			require.Equal(t, plan.HostDB, last.On, "on the database host")
		}
	}
}
