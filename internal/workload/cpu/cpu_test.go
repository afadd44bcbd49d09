package cpu

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/runner"
)

func TestPrimes(t *testing.T) {
	require.Equal(t, 0, Primes(3))
	require.Equal(t, 3, Primes(10), "3, 5, 7")
	require.Equal(t, 1228, Primes(10000), "the 1229 primes below 10000 but 2")
}

// TestRunsAsSysbenchCPU: 200 events on 2 threads through the runner, with
// sysbench's CPU speed block leading the summary.
func TestRunsAsSysbenchCPU(t *testing.T) {
	res, err := runner.Run(context.Background(), runner.Config{Workload: &Workload{MaxPrime: 2000}, Threads: 2, Events: 200, Seed: 1})
	require.NoError(t, err)
	require.Equal(t, uint64(200), res.Transactions)
	var b strings.Builder
	res.WriteSummary(&b)
	require.True(t, strings.HasPrefix(b.String(), "CPU speed:\n    events per second: "), b.String())
	require.Contains(t, b.String(), "total number of events:              200")
	require.NotContains(t, b.String(), "SQL statistics")
}
