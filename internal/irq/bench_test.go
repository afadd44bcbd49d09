package irq

import (
	"bytes"
	"fmt"
	"testing"
)

// bigInterrupts is a 256-CPU, 2,000-line /proc/interrupts (about 1.5 MB).
func bigInterrupts() []byte {
	var b bytes.Buffer
	for c := range 256 {
		fmt.Fprintf(&b, " CPU%d", c)
	}
	b.WriteByte('\n')
	for i := range 2000 {
		fmt.Fprintf(&b, "%4d:", 100+i)
		for c := range 256 {
			fmt.Fprintf(&b, " %d", (i*c)%100000)
		}
		fmt.Fprintf(&b, "  IR-PCI-MSIX-0000:5e:00.0  %d-edge  nvme0q%d\n", i, i)
	}
	return b.Bytes()
}

func BenchmarkParseInterrupts(b *testing.B) {
	data := bigInterrupts()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseInterrupts(data); err != nil {
			b.Fatal(err)
		}
	}
}
