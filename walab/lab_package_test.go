package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFindBinaryPackagedNames: the packages install the exporter and
// loadgen as walab-exporter and walab-loadgen; the lab finds them under
// those names too (next to walab, else on PATH). Before, `walab lab` from
// the walab package looked for exporter and loadgen alone and could not
// start.
func TestFindBinaryPackagedNames(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "walab-loadgen")
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755))
	t.Setenv("PATH", dir)
	p, err := findBinary("", "loadgen")
	require.NoError(t, err)
	require.Equal(t, bin, p)
	_, err = findBinary("", "exporter")
	require.ErrorContains(t, err, "neither exporter nor walab-exporter")
}

// TestLabPlanPackaged: without --plan the lab takes the source tree's plan
// when run from one, else the plan the walab package ships; with neither
// it says, in one line, what it needs.
func TestLabPlanPackaged(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	shipped := filepath.Join(dir, "share", "seed000-sim.yml")
	_, err := defaultPlan([]string{labPlan, shipped})
	require.ErrorContains(t, err, "no plan: neither "+labPlan+" (a walab source tree) nor "+shipped)
	require.NoError(t, os.MkdirAll(filepath.Dir(shipped), 0o755))
	require.NoError(t, os.WriteFile(shipped, []byte("name: x\n"), 0o644))
	p, err := defaultPlan([]string{labPlan, shipped})
	require.NoError(t, err)
	require.Equal(t, shipped, p)
	require.NoError(t, os.MkdirAll(filepath.Dir(labPlan), 0o755))
	require.NoError(t, os.WriteFile(labPlan, []byte("name: x\n"), 0o644))
	p, err = defaultPlan([]string{labPlan, shipped})
	require.NoError(t, err)
	require.Equal(t, labPlan, p)
	require.Equal(t, "/usr/share/walab/experiments/seed000-sim.yml", packagedPlan)
}
