//go:build linux

package qemu

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// AccelEnv names the QEMU accelerator VM.Args passes; TCG when unset.
func TestVMArgsAccelFromEnv(t *testing.T) {
	t.Setenv(AccelEnv, "kvm")
	args, err := VM{Kernel: Kernel{Image: "/k"}, Initramfs: "/i", Dir: t.TempDir()}.Args()
	require.NoError(t, err)
	require.Contains(t, strings.Join(args, " "), "-accel kvm ")
	t.Setenv(AccelEnv, "")
	args, err = VM{Kernel: Kernel{Image: "/k"}, Initramfs: "/i", Dir: t.TempDir()}.Args()
	require.NoError(t, err)
	require.Contains(t, strings.Join(args, " "), "-accel tcg ")
}

func arm(qd, pair int, on bool, writes uint64, secs float64) string {
	return fmt.Sprintf(`{"qd":%d,"pair":%d,"tracer":%t,"stats":false,"writes":%d,"secs":%g,"traced":%d}`,
		qd, pair, on, writes, secs, map[bool]uint64{true: writes}[on])
}

// Known arms: at QD 1 every pair is within 1 % (ratios 0.995, 1.01, 0.999),
// at QD 32 one pair is 5 % slower and one 2 % faster (not resolved).
func TestSummarizeTracerCost(t *testing.T) {
	lines := []string{
		arm(1, 0, false, 1000, 1), arm(1, 0, true, 995, 1),
		arm(1, 1, true, 2020, 2), arm(1, 1, false, 2000, 2),
		arm(1, 2, false, 1000, 1), arm(1, 2, true, 999, 1),
		`{"qd":1,"pair":-1,"tracer":true,"stats":true,"writes":1000,"secs":1,"traced":1000,"runs":1000,"run_ns":250000}`,
		arm(32, 0, false, 4000, 1), arm(32, 0, true, 3800, 1),
		"",
		arm(32, 1, true, 4080, 1), arm(32, 1, false, 4000, 1),
	}
	arms, err := ParseTracerArms(strings.NewReader(strings.Join(lines, "\n")))
	require.NoError(t, err)
	require.Len(t, arms, 11)
	got := SummarizeTracerCost(arms, 0.01)
	require.Len(t, got, 2)

	qd1 := got[0]
	require.Equal(t, 1, qd1.QD)
	require.InDeltaSlice(t, []float64{0.995, 0.999, 1.01}, qd1.Ratios, 1e-12)
	require.InDelta(t, 0.999, qd1.Median, 1e-12)
	require.Equal(t, [][2]float64{{1000, 995}, {1000, 1010}, {1000, 999}}, qd1.PairIOPS)
	require.Contains(t, qd1.Format(), "IOPS off/on per pair: 1000/995 1000/1010 1000/999\n")
	require.InDelta(t, 1000.0, qd1.OffIOPS, 1e-9)
	require.InDelta(t, (995+1010+999)/3.0, qd1.OnIOPS, 1e-9)
	require.InDelta(t, 250.0, qd1.NsPerRun, 1e-12)
	require.InDelta(t, 1e6, qd1.NsPerWriteOff, 1e-6)
	require.Equal(t, "cost <= 1 % in every pair", qd1.Verdict)
	require.Contains(t, qd1.Format(), "250 ns per run over 1000 runs = 0.03 % of the 1000000 ns per write without it")
	require.NotContains(t, qd1.Format(), "estimate")
	qd1.Slowdown = 12.5
	require.Contains(t, qd1.Format(), "(emulated CPU 12.5x slower on a calibration loop): 20 ns per run")

	qd32 := got[1]
	require.InDeltaSlice(t, []float64{0.95, 1.02}, qd32.Ratios, 1e-12)
	require.InDelta(t, 0.985, qd32.Median, 1e-12)
	require.Contains(t, qd32.Verdict, "NOT RESOLVED at 1 %: the pairs' ratios span 0.950-1.020")
	require.Zero(t, qd32.Runs)
	require.Contains(t, qd32.Format(), "no run-time statistics")
}

func TestCalibrationWork(t *testing.T) {
	require.Positive(t, CalibrationWork())
	require.NotZero(t, calibrationSink, "the loop ran")
}

func TestTracerCostVerdicts(t *testing.T) {
	require.Equal(t, "cost > 1 % in every pair", verdict([]float64{0.95, 0.98}, 0.01))
	require.Contains(t, verdict([]float64{0.999}, 0.01), "NOT VALID")
	require.Contains(t, verdict(nil, 0.01), "NOT VALID")
}

// A missed write, and a pair without its off arm, are reported.
func TestSummarizeTracerCostIncomplete(t *testing.T) {
	arms := []TracerArm{
		{QD: 1, Pair: 0, Tracer: true, Writes: 100, Secs: 1, Traced: 97},
		{QD: 1, Pair: 0, Writes: 100, Secs: 1},
		{QD: 1, Pair: 1, Tracer: true, Writes: 100, Secs: 1, Traced: 100},
	}
	c := SummarizeTracerCost(arms, 0.01)[0]
	require.Equal(t, uint64(3), c.Untraced)
	require.Equal(t, 1, c.PairsWithoutMatch)
	require.Contains(t, c.Format(), "NOT VALID: the tracer missed 3 writes")
	require.Contains(t, c.Format(), "1 pairs lack an off or on arm")
}

func TestParseTracerArmsRejects(t *testing.T) {
	for _, bad := range []string{
		`{"qd":1,"pair":0,"writes":0,"secs":1}`,           // no writes: not a rate of 0
		`{"qd":1,"pair":0,"writes":10,"secs":0}`,          // no time
		`{"qd":0,"pair":0,"writes":10,"secs":1}`,          // no queue depth
		`{"qd":1,"pair":0,"writes":10,"secs":1,"iops":5}`, // unknown field
		`{"qd":1,`,
	} {
		_, err := ParseTracerArms(strings.NewReader(arm(1, 0, false, 1, 1) + "\n" + bad))
		require.ErrorContains(t, err, "line 2", bad)
	}
}

func FuzzParseTracerArms(f *testing.F) {
	f.Add(arm(1, 0, false, 1000, 1) + "\n" + arm(1, 0, true, 990, 1))
	f.Fuzz(func(t *testing.T, s string) {
		arms, err := ParseTracerArms(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, c := range SummarizeTracerCost(arms, 0.01) {
			_ = c.Format()
			for _, r := range c.Ratios {
				require.False(t, r < 0, "a ratio of positive rates: %v", r)
			}
		}
	})
}
