package main

import (
	"os/exec"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLayering holds the exporter's import direction: transport (the
// admin ioctl, sysfs) → decode (byte layouts) → probe (what to read, NAND
// sources) → fleet, simulator, replay → collectors and the WA sampler →
// the composition root (exporterapp) → this binary. No package imports
// one above it; go list -deps sees every edge, indirect ones included.
func TestLayering(t *testing.T) {
	const mod = "github.com/walab/walab/"
	layers := [][]string{
		{"internal/nvme/admin", "internal/nvme/passthru", "internal/nvme/sysfs", "internal/safefile", "internal/buildinfo", "internal/hostapi", "internal/hostfacts"},
		{"internal/nvme/decode"},
		{"internal/nvme/probe", "internal/nvme/replay"},
		{"internal/simfs/alloc", "internal/simfs/fileclass"},
		{"internal/nvme/fleet", "internal/nvme/sim", "internal/simfs", "internal/simfs/device"},
		{"internal/collector", "internal/wa"},
		{"internal/exporterapp"},
		{"exporter"},
	}
	for i, layer := range layers {
		for _, pkg := range layer {
			out, err := exec.Command("go", "list", "-deps", mod+pkg).Output()
			require.NoError(t, err, pkg)
			deps := strings.Fields(string(out))
			for _, above := range layers[i+1:] {
				for _, a := range above {
					require.NotContains(t, deps, mod+a, "%s imports %s, a layer above it", pkg, a)
				}
			}
		}
	}
	// The runner reads a database host only through its exporter
	// (internal/hostapi): the package that reads a host's files is the
	// exporter's alone.
	for _, pkg := range []string{"internal/experiment", "internal/fingerprint", "walab"} {
		out, err := exec.Command("go", "list", "-deps", mod+pkg).Output()
		require.NoError(t, err, pkg)
		require.NotContains(t, strings.Fields(string(out)), mod+"internal/hostfacts", "%s reads host facts locally", pkg)
	}
	// The runner reads mysqld's profile from the exporter's endpoint
	// (internal/hotspots); the BPF sampler is the exporter's alone.
	for _, pkg := range []string{"internal/experiment", "walab"} {
		out, err := exec.Command("go", "list", "-deps", mod+pkg).Output()
		require.NoError(t, err, pkg)
		require.NotContains(t, strings.Fields(string(out)), mod+"internal/cpuprof", "%s imports the CPU sampler", pkg)
	}
	// Collectors read controllers through the fleet and never know the
	// simulator; the composition root wires a simulated drive in.
	for _, pkg := range []string{"internal/collector", "internal/wa"} {
		out, err := exec.Command("go", "list", "-deps", mod+pkg).Output()
		require.NoError(t, err, pkg)
		require.NotContains(t, strings.Fields(string(out)), mod+"internal/nvme/sim", "%s imports the simulator", pkg)
	}
	// The byte layouts are leaves: decode imports no walab package; nor do
	// fio's report reader, the raw-device guard, the metric names, io_uring
	// and the profile reader.
	for _, leaf := range []string{"internal/nvme/decode", "internal/fio", "internal/rawdev", "internal/promql", "internal/uring", "internal/hotspots"} {
		out, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}`, mod+leaf).Output()
		require.NoError(t, err)
		for _, p := range strings.Fields(string(out)) {
			require.False(t, strings.HasPrefix(p, mod), "%s imports %s", leaf, p)
		}
	}
	// Nothing points back up: a package under a directory whose own package
	// it sits below (internal/workload/x under internal/workload) imports
	// no package outside that directory that depends on it, so a subtree
	// never sits on top of a package that sits on top of its parent.
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}|{{join .Deps \" \"}}", mod+"...").Output()
	require.NoError(t, err)
	deps := map[string][]string{}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		imports[f[0]], deps[f[0]] = strings.Fields(f[1]), strings.Fields(f[2])
	}
	for pkg := range imports {
		for dir := path.Dir(pkg); strings.HasPrefix(dir, mod); dir = path.Dir(dir) {
			if _, ok := imports[dir]; !ok {
				continue // no package there
			}
			for _, q := range imports[pkg] {
				if strings.HasPrefix(q, mod) && !strings.HasPrefix(q, dir+"/") && slices.Contains(deps[q], dir) {
					t.Errorf("%s imports %s, which depends on %s above it", pkg, q, dir)
				}
			}
		}
	}
}
