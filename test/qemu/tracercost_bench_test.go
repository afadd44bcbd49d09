//go:build linux

package qemu

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// Settings of the tracer-cost bench (bench/tracer-cost.sh); the test runs
// only with TracerBenchEnv=1, since it is a measurement, not a check.
const (
	TracerBenchEnv       = "WALAB_BENCH_TRACER"
	TracerBenchPairsEnv  = "WALAB_BENCH_TRACER_PAIRS"  // off/on pairs per queue depth (5)
	TracerBenchSecsEnv   = "WALAB_BENCH_TRACER_SECS"   // seconds per arm (3)
	TracerBenchReportEnv = "WALAB_BENCH_TRACER_REPORT" // file the summary is also written to
)

// tracerCostSteps: tracefs for the tracer, the guest kernel's word on the
// hypervisor it found, then the arms (tracercost's doc says which).
const tracerCostSteps = `mount -t tracefs nodev /sys/kernel/tracing
step accel sh -c 'dmesg | grep -i hypervisor || echo "no hypervisor line in dmesg"'
step calibrate /tracercost -calibrate
step cost /tracercost -dev /dev/nvme0n1 -qd 1,32 -pairs @PAIRS@ -secs @SECS@ -out /out/arms.jsonl`

// TestQEMUTracerCost measures the placement tracer's cost on 4 KiB direct
// writes at queue depth 1 and 32 in a guest with an emulated NVMe
// controller, under KVM when a guest kernel boots under it, else TCG.
func TestQEMUTracerCost(t *testing.T) {
	if os.Getenv(TracerBenchEnv) != "1" {
		t.Skipf("a measurement: set %s=1 (bench/tracer-cost.sh)", TracerBenchEnv)
	}
	pairs, secs := benchSetting(t, TracerBenchPairsEnv, 5), benchSetting(t, TracerBenchSecsEnv, 3)
	// The whole guest run has bootTimeout; attaching and detaching the
	// tracer costs seconds per arm under TCG on a loaded machine (5 pairs
	// of 3 s fit, 10 did not).
	if armSecs := 2 * (2*pairs + 1) * secs; armSecs > 80 {
		t.Fatalf("%s=%d x %s=%d: %d s of arms do not fit the guest's %s; at most 80 s", TracerBenchPairsEnv, pairs, TracerBenchSecsEnv, secs, armSecs, bootTimeout)
	}
	qemuBin := testenv.RequireBinary(t, "qemu-system-x86_64")
	k, err := FindKernel("/boot", "/lib/modules")
	if err != nil {
		testenv.Missing(t, "%v", err)
	}
	accel, why := chooseAccel(t, qemuBin, k)
	t.Setenv(AccelEnv, accel)
	steps := strings.NewReplacer("@PAIRS@", strconv.Itoa(pairs), "@SECS@", strconv.Itoa(secs)).Replace(tracerCostSteps)
	out, _ := bootGuest(t, steps, []Controller{{Serial: "walabc001", DiskMiB: 256}},
		[]string{"nvme"}, []string{"crct10dif_generic", "crc64_rocksoft_generic"}, "./tracercost")
	requireSteps(t, out, "accel", "calibrate", "cost")

	f, err := os.Open(filepath.Join(out, "arms.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	arms, err := ParseTracerArms(f)
	require.NoError(t, err)
	require.Len(t, arms, 2*(2*pairs+1), "every arm of both queue depths")
	var report strings.Builder
	fmt.Fprintf(&report, "accelerator: %s (%s)\nguest kernel %s: %s\n", accel, why, k.Version,
		strings.TrimSpace(string(mustRead(t, filepath.Join(out, "accel.log")))))
	fmt.Fprintf(&report, "%d off/on pairs of %d s per queue depth, 4 KiB O_DIRECT writes\n", pairs, secs)
	guestNs, err := strconv.ParseFloat(strings.TrimSpace(string(mustRead(t, filepath.Join(out, "calibrate.log")))), 64)
	require.NoError(t, err)
	host := CalibrationWork()
	fmt.Fprintf(&report, "calibration loop: %.1f ms in the guest, %.1f ms on the host\n", guestNs/1e6, float64(host)/1e6)
	for _, c := range SummarizeTracerCost(arms, 0.01) {
		c.Slowdown = guestNs / float64(host)
		report.WriteString(c.Format())
		require.Zero(t, c.Untraced, "the tracer counts every write of its arms (QD %d)", c.QD)
		require.Zero(t, c.PairsWithoutMatch)
		require.Positive(t, c.Runs, "the statistics arm counted runs (QD %d)", c.QD)
	}
	t.Log("\n" + report.String())
	if p := os.Getenv(TracerBenchReportEnv); p != "" {
		require.NoError(t, os.WriteFile(p, []byte(report.String()), 0o644))
	}
}

func benchSetting(t *testing.T, env string, def int) int {
	v := os.Getenv(env)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive integer", env, v)
	}
	return n
}

// chooseAccel picks KVM when /dev/kvm opens and Debian's kernel boots
// under it as far as mounting a root file system (it has none here, so it
// panics and QEMU exits); else TCG. The reason says which test failed:
// a /dev/kvm that opens is not enough (a nested host may accept the VM
// and never run the guest).
func chooseAccel(t *testing.T, qemuBin string, k Kernel) (accel, why string) {
	if v := os.Getenv(AccelEnv); v != "" {
		return v, "$" + AccelEnv
	}
	f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0)
	if err != nil {
		return "tcg", fmt.Sprintf("fell back to TCG: /dev/kvm: %v", err)
	}
	f.Close()
	console := filepath.Join(t.TempDir(), "probe.log")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, qemuBin, "-accel", "kvm", "-m", "256", "-display", "none", "-vga", "none",
		"-monitor", "none", "-nic", "none", "-no-reboot", "-kernel", k.Image,
		"-append", "console=ttyS0 panic=-1", "-serial", "file:"+console)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	runErr := cmd.Run()
	con, _ := os.ReadFile(console)
	if strings.Contains(string(con), "Unable to mount root") {
		return "kvm", "/dev/kvm opened and the guest kernel booted under it"
	}
	return "tcg", fmt.Sprintf("fell back to TCG: /dev/kvm opens, but the guest kernel did not reach mounting root under KVM within a minute (qemu: %v; %d bytes of console)", runErr, len(con))
}
