package irq

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// oracleParseInterrupts is the plain reading of /proc/interrupts that
// ParseInterrupts replaced (string lines, a field at a time, strconv for
// every count): the oracle the fast parser must agree with on any input.
// One change: a line of white space other than spaces and tabs is blank
// here too, where the old reading panicked on it.
func oracleParseInterrupts(b []byte) (*Interrupts, error) {
	lines, err := splitLines(b)
	if err != nil {
		return nil, fmt.Errorf("interrupts: %w", err)
	}
	cpus, err := parseHeader(lines[0])
	if err != nil {
		return nil, fmt.Errorf("interrupts: %w", err)
	}
	out := &Interrupts{CPUs: cpus}
	for i, l := range lines[1:] {
		line, ok, err := oracleLine(l, cpus)
		if err != nil {
			if len(out.Skipped) < maxSkipped {
				out.Skipped = append(out.Skipped, fmt.Sprintf("line %d: %v", i+2, err))
			}
			continue
		}
		if ok {
			out.Lines = append(out.Lines, line)
		}
	}
	return out, nil
}

func oracleLine(l string, cpus []int) (line Line, ok bool, err error) {
	if strings.Trim(l, " \t") == "" {
		return line, false, nil
	}
	colon := strings.IndexByte(l, ':')
	if colon < 0 {
		f := strings.Fields(l)
		if len(f) == 0 {
			return line, false, nil
		}
		return line, false, fmt.Errorf("first field %q has no colon", f[0])
	}
	n, err := strconv.Atoi(strings.TrimLeft(l[:colon], " \t"))
	if err != nil {
		return line, false, nil
	}
	if n < 0 {
		return line, false, fmt.Errorf("negative irq %d", n)
	}
	line = Line{IRQ: n, Counts: make([]uint64, len(cpus))}
	rest := l[colon+1:]
	for c := range cpus {
		rest = strings.TrimLeft(rest, " \t")
		end := strings.IndexAny(rest, " \t")
		if end < 0 {
			end = len(rest)
		}
		f := rest[:end]
		rest = rest[end:]
		if f == "" {
			return line, false, fmt.Errorf("irq %d has %d fields, the header lists %d CPUs", n, c, len(cpus))
		}
		if line.Counts[c], err = strconv.ParseUint(f, 10, 64); err != nil {
			return line, false, fmt.Errorf("irq %d: count %q for CPU%d: %w", n, f, cpus[c], err)
		}
	}
	if f := strings.Fields(rest); len(f) > 0 {
		line.Chip = f[0]
		line.Actions = actions(f[1:])
	}
	return line, true, nil
}

// requireSameAsOracle parses b both ways and wants the same result.
func requireSameAsOracle(t testing.TB, b []byte) {
	want, wantErr := oracleParseInterrupts(b)
	got, err := ParseInterrupts(b)
	if wantErr != nil {
		require.EqualError(t, err, wantErr.Error())
		return
	}
	require.NoError(t, err)
	require.Equal(t, want, got)
	// A parser used before reads it the same: nothing of the last file stays.
	again, err := reused.Parse(b)
	require.NoError(t, err)
	require.Equal(t, want, again)
}

// reused is one parser for every input of the oracle tests.
var reused InterruptsParser

func TestParseInterruptsMatchesOracle(t *testing.T) {
	for _, in := range []string{
		sampleInterrupts,
		"  CPU0 CPU1\n 5: 1 2 chip 0-edge nvme1q1\n 60: 1 x chip 1-edge nvme0q1\n 61: 1\n",
		"  CPU0 CPU1\n 1: 18446744073709551615 18446744073709551616 c\n 2: 00000000000000000000001 2\n",
		"  CPU0 CPU1\n 1: 1 2 chip 27 Level arch_timer\n 2: 1 2 chip 9 x y\n 3: 1 2 chip a b, c,\n",
		"  CPU0 CPU1\n 1: 1 2 chip 1-edge \u00a0nvme0q1\n 2: 1 2\tchip\t1-edge\tnvme0q2\t\n 3:\t1\t2\r\n",
		"  CPU0\n\r\n +5: 1 c\n -1: 1\n 1:1 c 1-edge a,b\n x 1\n:1\n 12345678901: 1\n",
		string(bigInterrupts()),
		string(sparseInterrupts()),
		string(kernelInterrupts(64, 300)),
	} {
		requireSameAsOracle(t, []byte(in))
	}
}

// FuzzParseInterruptsOracle: the fast parser reads any input as the oracle does.
func FuzzParseInterruptsOracle(f *testing.F) {
	f.Add([]byte(sampleInterrupts))
	f.Add([]byte("  CPU0 CPU2\n 5: 1 2 chip 0-edge nvme1q1\n"))
	f.Add([]byte("  CPU0 CPU1\n 24: 0 0  IR-PCI-MSI 1048576-edge      PCIe PME, aerdrv\n"))
	f.Fuzz(func(t *testing.T, b []byte) { requireSameAsOracle(t, b) })
}
