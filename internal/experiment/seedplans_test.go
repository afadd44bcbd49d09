package experiment

import (
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/collector"
	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/exporterapp"
	"github.com/walab/walab/internal/nvme/replay/fixture"
)

// TestSeedPlansPrepareFailsOnFirstInstance runs the shipped seed 000 plans'
// prepare loop (CREATE DATABASE per instance) under sh with a mariadb that
// fails for the first instance only: the step must fail, not return the
// last instance's status (issue 42, low).
func TestSeedPlansPrepareFailsOnFirstInstance(t *testing.T) {
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "mariadb"),
		[]byte("#!/bin/sh\ncase \"$*\" in *walab_seed000_1*) echo 'ERROR 1044 (42000): Access denied' >&2; exit 1;; esac\n"), 0o755))
	for _, name := range []string{"seed000-sim.yml", "seed000-two-hosts.yml"} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "deploy", "experiments", name))
		require.NoError(t, err)
		p, err := ParseEnv(raw, func(string) (string, bool) { return "", false })
		require.NoError(t, err, name)
		var loop string
		for _, s := range p.Prepare {
			if strings.Contains(s.Command, "CREATE DATABASE") {
				loop = s.Command
			}
		}
		require.NotEmpty(t, loop, "%s has a CREATE DATABASE step", name)
		cmd := exec.Command("/bin/sh", "-c", loop)
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		require.Error(t, err, "%s: the loop exits non-zero when instance 1 fails: %s", name, out)
		require.Contains(t, string(out), "Access denied")
	}
}

// TestTwoHostsPreconditionStep runs seed000-two-hosts.yml's
// precondition-drive step under sh against a real exporter (its
// 127.0.0.1:10131 pointed at a test server by a curl wrapper): on a
// simulated drive it re-preconditions the drive; on a real drive (a
// replayed one: the exporter serves no /api/v1/sim/) it does nothing and
// succeeds, so the plan needs no change on real hardware; with no
// exporter answering it fails.
func TestTwoHostsPreconditionStep(t *testing.T) {
	raw, err := os.ReadFile("../../deploy/experiments/seed000-two-hosts.yml")
	require.NoError(t, err)
	p, err := ParseEnv(raw, func(string) (string, bool) { return "", false })
	require.NoError(t, err)
	var step string
	for _, s := range p.Reset {
		if s.Name == "precondition-drive" {
			require.Equal(t, plan.HostDB, s.On, "the exporter takes mutations on loopback: the step runs on the database host")
			step = s.Command
		}
	}
	require.NotEmpty(t, step)
	curl, err := exec.LookPath("curl")
	require.NoError(t, err)
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "curl"), []byte("#!/bin/sh\n"+
		`for a; do shift; set -- "$@" "$(printf %s "$a" | sed "s#127.0.0.1:10131#$EXPORTER#")"; done`+"\nexec "+curl+` "$@"`+"\n"), 0o755))
	run := func(exporter string) (string, error) {
		cmd := exec.Command("/bin/sh", "-c", step)
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "EXPORTER="+exporter)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	sim := exporterServer(t, "sim:\n  name: nvmesim9\n  capacity: 256MiB\n  scale: 1\n  tick: 0s\n", "")
	out, err := run(sim)
	require.NoError(t, err, out)
	var state struct {
		Precondition uint64 `json:"precondition_written_bytes"`
	}
	resp, err := http.Get("http://" + sim + "/api/v1/sim/placement")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&state))
	require.Equal(t, uint64(256<<20), state.Precondition, "every page of the simulated drive written once")

	root := t.TempDir()
	require.NoError(t, fixture.Seed000Drive().Write(filepath.Join(root, "nvme0")))
	out, err = run(exporterServer(t, "", root))
	require.NoError(t, err, out)
	require.Contains(t, out, "no simulated drive: nothing to precondition")

	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	require.NoError(t, l.Close())
	out, err = run(l.Addr().String())
	require.Error(t, err, "no exporter answers: %s", out)
}

// exporterServer serves an exporter (mutations on) with config's sections,
// on a replay directory if one is given, and returns its host:port.
func exporterServer(t *testing.T, config, replay string) string {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "walab.yml")
	require.NoError(t, os.WriteFile(cfg, []byte("wa:\n  persist: false\n"+config), 0o644))
	a, err := exporterapp.New(exporterapp.Options{TelemetryPath: "/metrics", ConfigFile: cfg, ReplayDir: replay, EnableMutations: true,
		Paths: collector.Paths{ProcFS: "/proc", SysFS: t.TempDir(), DevFS: t.TempDir()}}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Close() })
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// TestSeed000NVMeDryRunGolden: the dry run of the shipped real-hardware
// plan, as an operator reads it before hours of prepare: each step's host,
// the plan's own command and its mark, the transport and the session guard
// said once.
func TestSeed000NVMeDryRunGolden(t *testing.T) {
	raw, err := os.ReadFile("../../deploy/experiments/seed000-nvme.yml")
	require.NoError(t, err)
	p, err := ParseEnv(raw, func(k string) (string, bool) { return "db.example", k == "WALAB_DB_HOST" })
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, DryRun(p, &b))
	assertGolden(t, "dry-run-seed000-nvme.txt", []byte(b.String()))
}

// TestSeed000FDPFilesDryRunGolden: the dry run of the shipped plan that
// runs seed 000's treatment (a placement handle per file class) through
// walab's filesystem's device backend (docs/placement-files.md).
func TestSeed000FDPFilesDryRunGolden(t *testing.T) {
	raw, err := os.ReadFile("../../deploy/experiments/seed000-fdp-files.yml")
	require.NoError(t, err)
	p, err := ParseEnv(raw, func(k string) (string, bool) { return "db.example", k == "WALAB_DB_HOST" })
	require.NoError(t, err)
	require.Equal(t, "baseline", p.Compare.Baseline)
	var b strings.Builder
	require.NoError(t, DryRun(p, &b))
	assertGolden(t, "dry-run-seed000-fdp-files.txt", []byte(b.String()))
}
