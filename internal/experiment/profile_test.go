package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment/plan"
)

// TestSeed003Plan: the shipped seed 003 plan asks for a profile per run,
// sets the seed's knob values in its second run, and its dry run says
// where each run's profile comes from.
func TestSeed003Plan(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "deploy", "experiments", "seed003-spin.yml"))
	require.NoError(t, err)
	p, err := ParseEnv(raw, func(string) (string, bool) { return "", false })
	require.NoError(t, err)
	require.Equal(t, plan.Duration(30e9), p.Profile)
	require.Len(t, p.Runs, 2)
	require.Contains(t, p.Runs[1].Between[0].Command, "innodb_spin_wait_delay=180, GLOBAL innodb_sync_spin_loops=25")
	var b strings.Builder
	require.NoError(t, DryRun(p, &b))
	require.Equal(t, 2, strings.Count(b.String(), "CPU profile 30s from http://127.0.0.1:10131"), b.String())
}
