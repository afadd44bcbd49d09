package wa

import (
	"context"
	"fmt"
	"math/big"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// Seed 000 section 4.8, calculate_wa.sh: every hour read host and GC write
// counters (4 KiB units) from log page 0xC0, take the hour's deltas,
// NAND = host + GC, print "nandMB hostMB WA" with MB = sectors/256 (shell
// integer division) and WA = nand/host by bc with scale=5 (truncated).

type seedSnapshots struct {
	preHost, preGC, curHost, curGC uint64 // 4 KiB sectors, cumulative
}

// scriptLine reproduces calculate_wa.sh's output line in Go: integer MB and
// bc's truncating scale=5 division (bc drops the leading zero below 1 and
// prints nothing, with an error on stderr, for a zero divisor).
func scriptLine(s seedSnapshots) string {
	host := s.curHost - s.preHost
	gc := s.curGC - s.preGC
	nand := host + gc
	wa := ""
	if host != 0 {
		q := new(big.Int).Mul(new(big.Int).SetUint64(nand), big.NewInt(100000))
		q.Quo(q, new(big.Int).SetUint64(host))
		ip, frac := new(big.Int).QuoRem(q, big.NewInt(100000), new(big.Int))
		wa = fmt.Sprintf(".%05d", frac.Int64())
		if ip.Sign() != 0 {
			wa = ip.String() + wa
		}
	}
	return fmt.Sprintf("%d %d %s", nand/256, host/256, wa)
}

// scriptBody is calculate_wa.sh from line "hostWriteDecSectorTemp=" on, with
// the two nvme get-log reads replaced by the hex values the script would
// have appended to host_tmp and gc_tmp.
const scriptBody = `
hostWriteDecSectorTemp=$(printf "%llu" $3)
gcWriteDecSectorTemp=$(printf "%llu" $4)
preHostValue=$(printf "%llu" $1)
preGcValue=$(printf "%llu" $2)
hostWrittenSector=$(echo ${hostWriteDecSectorTemp}-${preHostValue} | bc -l)
gcWrittenSector=$(echo ${gcWriteDecSectorTemp}-${preGcValue} | bc -l)
nandSector=$(echo ${hostWrittenSector}+${gcWrittenSector} | bc -l)
hostWrittenMB=$((${hostWrittenSector}/256))
nandWrittenMB=$((${nandSector}/256))
WA=$(echo "scale=5;${nandSector}/${hostWrittenSector}" | bc 2>/dev/null)
echo $nandWrittenMB $hostWrittenMB $WA
`

// truncate5 cuts a float to 5 decimals the way bc's scale=5 would, working
// on the shortest decimal that round-trips the float (so 1.00001, which is
// not exact in binary, stays 1.00001 instead of becoming 1.00000).
func truncate5(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	ip, frac, _ := strings.Cut(s, ".")
	frac = (frac + "00000")[:5]
	if ip == "0" {
		ip = ""
	}
	return ip + "." + frac
}

func TestSeed000CalculateWAEquivalence(t *testing.T) {
	const hour = 2_621_440 // 10 GiB in 4 KiB sectors: a busy hour
	tests := []struct {
		name string
		s    seedSnapshots
		line string // calculate_wa.sh's output, worked out by hand
	}{
		{"busy hour", seedSnapshots{0x1a2b3c4d5e, 0x0badcafe, 0x1a2b3c4d5e + hour, 0x0badcafe + 1_234_567}, "15062 10240 1.47094"},
		{"no garbage collection", seedSnapshots{1000, 77, 1000 + hour, 77}, "10240 10240 1.00000"},
		{"repeating decimal", seedSnapshots{0, 0, 768_000, 256_000}, "4000 3000 1.33333"},
		{"exactly five decimals", seedSnapshots{0, 0, 100_000, 1}, "390 390 1.00001"},
		{"just under a boundary", seedSnapshots{0, 0, 700_000, 6}, "2734 2734 1.00000"},
		{"high WA", seedSnapshots{5, 5, 1005, 3_000_004}, "11722 3 3000.99900"},
		{"counters near 2^40 sectors", seedSnapshots{1 << 40, 1 << 39, 1<<40 + 123_456_789, 1<<39 + 98_765_432}, "868055 482253 1.80000"},
		{"under 1 MB of host writes", seedSnapshots{0, 0, 255, 1}, "1 0 1.00392"},
		{"idle hour: bc divides by zero, WA absent", seedSnapshots{42, 42, 42, 4242}, "16 0 "},
	}
	// The real script lines need bash and bc; CI must have them
	// (scripts/apt-packages.txt lists bc), elsewhere the Go reproduction
	// alone is checked.
	bash, bashErr := exec.LookPath("bash")
	_, bcErr := exec.LookPath("bc")
	if bashErr != nil || bcErr != nil {
		if testenv.CI() && !testing.Short() {
			t.Fatalf("bash and bc are required under CI=true: %v %v", bashErr, bcErr)
		}
		t.Log("bash or bc missing: checking against the Go reproduction only")
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each case forks bash and bc a few times
			require.Equal(t, tc.line, scriptLine(tc.s), "Go reproduction of the script")

			if bashErr == nil && bcErr == nil {
				hex := func(v uint64) string { return fmt.Sprintf("0x%016x", v) }
				out, err := exec.Command(bash, "-c", scriptBody, "calculate_wa.sh",
					hex(tc.s.preHost), hex(tc.s.preGC), hex(tc.s.curHost), hex(tc.s.curGC)).Output()
				require.NoError(t, err)
				require.Equal(t, strings.TrimRight(tc.line, " "), strings.TrimSpace(string(out)), "the real script lines under bash and bc")
			}

			// The sampler sees the same two snapshots an hour apart, in bytes.
			r := &fakeReader{}
			s, _ := newTestSampler(t, r, Options{})
			r.set("nvme0", tc.s.preHost*4096, (tc.s.preHost+tc.s.preGC)*4096)
			require.NoError(t, s.Sample(context.Background(), t0))
			r.set("nvme0", tc.s.curHost*4096, (tc.s.curHost+tc.s.curGC)*4096)
			require.NoError(t, s.Sample(context.Background(), t0.Add(time.Hour)))
			_, w := windowsOf(t, s, "nvme0")

			host := tc.s.curHost - tc.s.preHost
			nand := host + tc.s.curGC - tc.s.preGC
			scriptWA := strings.SplitN(tc.line, " ", 3)[2]
			if host == 0 {
				require.False(t, w["1h"].HasWA, "the script prints no WA; the series is absent")
				return
			}
			require.True(t, w["1h"].HasWA)
			require.Equal(t, 3600.0, w["1h"].Seconds)
			exact, _ := new(big.Rat).SetFrac(new(big.Int).SetUint64(nand), new(big.Int).SetUint64(host)).Float64()
			require.Equal(t, exact, w["1h"].WA, "the float is the exact ratio, correctly rounded")
			require.Equal(t, scriptWA, truncate5(w["1h"].WA), "5-decimal truncation is the script's WA field")
		})
	}
}
