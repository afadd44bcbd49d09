package irq

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const sampleInterrupts = `           CPU0       CPU1       CPU2       CPU3       
  0:         44          0          0          0   IO-APIC   2-edge      timer
  9:          0          0          0          0   IO-APIC   9-fasteoi   acpi
 16:          3          0          0          0   IO-APIC  16-fasteoi   ehci_hcd:usb1, nvme0q0
 60:     100000          0          0          7   IR-PCI-MSIX-0000:10:00.0    1-edge      nvme0q1
 61:          0          0          0          0   PCI-MSIX-0000:00:01.0   0-edge
 62:         17         18         19         20   GICv3  27 Level     arch_timer
NMI:          0          0          0          0   Non-maskable interrupts
ERR:          0
MIS:          0
`

func TestParseInterrupts(t *testing.T) {
	got, err := ParseInterrupts([]byte(sampleInterrupts))
	require.NoError(t, err)
	require.Equal(t, []int{0, 1, 2, 3}, got.CPUs)
	require.Equal(t, []Line{
		{IRQ: 0, Counts: []uint64{44, 0, 0, 0}, Chip: "IO-APIC", Actions: []string{"timer"}},
		{IRQ: 9, Counts: []uint64{0, 0, 0, 0}, Chip: "IO-APIC", Actions: []string{"acpi"}},
		{IRQ: 16, Counts: []uint64{3, 0, 0, 0}, Chip: "IO-APIC", Actions: []string{"ehci_hcd:usb1", "nvme0q0"}},
		{IRQ: 60, Counts: []uint64{100000, 0, 0, 7}, Chip: "IR-PCI-MSIX-0000:10:00.0", Actions: []string{"nvme0q1"}},
		{IRQ: 61, Counts: []uint64{0, 0, 0, 0}, Chip: "PCI-MSIX-0000:00:01.0"},
		{IRQ: 62, Counts: []uint64{17, 18, 19, 20}, Chip: "GICv3", Actions: []string{"arch_timer"}},
	}, got.Lines)
}

func TestParseInterruptsOfflineCPUs(t *testing.T) {
	// CPU1 offline: the columns are CPU0 and CPU2, not 0 and 1.
	got, err := ParseInterrupts([]byte("   CPU0  CPU2\n 5: 1 2 chip 0-edge nvme1q1\n"))
	require.NoError(t, err)
	require.Equal(t, []int{0, 2}, got.CPUs)
	require.Equal(t, []uint64{1, 2}, got.Lines[0].Counts)
}

func TestParseInterruptsErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", "", "empty"},
		{"truncated mid line", sampleInterrupts[:200], "truncated"},
		{"header only no newline", "  CPU0 CPU1", "truncated"},
		{"bad header", "  CPU0 GPU1\n", "not CPUn"},
		{"repeated cpu", "  CPU0 CPU0\n 1: 1 2\n", "CPU0 twice"},
		{"blank header", "\n 1: 2\n", "empty header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseInterrupts([]byte(tc.in))
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// TestParseInterruptsBadLineCostsTheLine: a line that does not parse is
// skipped and reported; the good lines around it are kept.
func TestParseInterruptsBadLineCostsTheLine(t *testing.T) {
	for _, tc := range []struct {
		name, bad, want string
	}{
		{"short line", " 60: 1\n", "header lists 2 CPUs"},
		{"bad count", " 60: 1 x chip 1-edge nvme0q1\n", `count "x"`},
		{"no colon", " 60 1 2\n", "no colon"},
		{"negative irq", " -1: 1 2\n", "negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := "  CPU0 CPU1\n 5: 1 2 chip 0-edge nvme1q1\n" + tc.bad + " 7: 3 4 chip 1-edge nvme1q2\n"
			got, err := ParseInterrupts([]byte(in))
			require.NoError(t, err)
			require.Len(t, got.Lines, 2)
			require.Equal(t, 7, got.Lines[1].IRQ)
			require.Len(t, got.Skipped, 1)
			require.Contains(t, got.Skipped[0], "line 3: ")
			require.Contains(t, got.Skipped[0], tc.want)
		})
	}
}

// TestParseInterruptsRealWorldFormats: formats found on real hosts that
// walab used to reject or misread.
func TestParseInterruptsRealWorldFormats(t *testing.T) {
	// arm64: IPI labels glued to ten-digit counts, GICv3 Level/Edge rows.
	arm := "           CPU0       CPU1\n" +
		" 11:  123456789  987654321     GICv3  27 Level     arch_timer\n" +
		"IPI0:2768808080 2844211768       Rescheduling interrupts\n" +
		"IPI1:      1234       5678       Function call interrupts\n" +
		" 45:         10         20     ITS-MSI 524288 Edge      nvme0q0\n"
	got, err := ParseInterrupts([]byte(arm))
	require.NoError(t, err)
	require.Empty(t, got.Skipped)
	require.Equal(t, []Line{
		{IRQ: 11, Counts: []uint64{123456789, 987654321}, Chip: "GICv3", Actions: []string{"arch_timer"}},
		{IRQ: 45, Counts: []uint64{10, 20}, Chip: "ITS-MSI", Actions: []string{"nvme0q0"}},
	}, got.Lines)

	// Action names with spaces, and a shared line whose names hold spaces.
	x86 := "           CPU0       CPU1\n" +
		" 24:          0          0  IR-PCI-MSI 1048576-edge      PCIe PME, aerdrv\n" +
		" 25:          5          0  DMAR-MSI    0-edge      dmar0\n" +
		" 26:          1          2  IR-PCI-MSI 2097152-edge      SGX ISR\n"
	got, err = ParseInterrupts([]byte(x86))
	require.NoError(t, err)
	require.Equal(t, []string{"PCIe PME", "aerdrv"}, got.Lines[0].Actions)
	require.Equal(t, []string{"dmar0"}, got.Lines[1].Actions)
	require.Equal(t, []string{"SGX ISR"}, got.Lines[2].Actions)
}

func FuzzParseInterrupts(f *testing.F) {
	f.Add([]byte(sampleInterrupts))
	f.Add([]byte("  CPU0 CPU2\n 5: 1 2 chip 0-edge nvme1q1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ParseInterrupts(b)
		if err != nil {
			return
		}
		for _, l := range got.Lines {
			require.Len(t, l.Counts, len(got.CPUs))
		}
	})
}

// TestParseInterruptsOtherWhiteSpaceLine: a line of white space other than
// spaces and tabs is blank. The string-at-a-time parser indexed its first
// field and panicked on it.
func TestParseInterruptsOtherWhiteSpaceLine(t *testing.T) {
	got, err := ParseInterrupts([]byte("  CPU0\n\r\n\v \f\n 5: 1 chip 0-edge nvme1q1\n"))
	require.NoError(t, err)
	require.Empty(t, got.Skipped)
	require.Equal(t, []Line{{IRQ: 5, Counts: []uint64{1}, Chip: "chip", Actions: []string{"nvme1q1"}}}, got.Lines)
}
