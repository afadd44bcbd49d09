package hostfacts

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/walab/walab/internal/hostapi"
	"github.com/walab/walab/internal/irq"
)

var nvmeQueue = regexp.MustCompile(`^(nvme\d+)q\d+$`)

// readIRQs lists the NVMe queue lines and the configured NICs' lines with
// the CPUs each may run on.
func readIRQs(o Options, f *hostapi.Facts, errf func(string, ...any)) {
	b, err := os.ReadFile(filepath.Join(o.ProcFS, "interrupts"))
	if err != nil {
		errf("irqs: %v", err)
		return
	}
	ints, err := irq.ParseInterrupts(b)
	if err != nil {
		errf("irqs: %v", err)
		return
	}
	msi := map[int]string{}
	for _, i := range o.Interfaces {
		ns, err := irq.MSIIRQs(o.SysFS, i)
		if err != nil {
			errf("irqs of %s: %v", i, err)
		}
		for _, n := range ns {
			msi[n] = i
		}
	}
	for _, l := range ints.Lines {
		dev, action := classify(l, msi, o.Interfaces)
		if dev == "" {
			continue
		}
		if len(f.IRQs) == MaxIRQs {
			f.Truncated = append(f.Truncated, fmt.Sprintf("irqs (at most %d)", MaxIRQs))
			return
		}
		aff, ok, err := irq.ReadAffinity(o.ProcFS, l.IRQ)
		if err != nil {
			errf("irq %d: %v", l.IRQ, err)
			continue
		}
		if !ok {
			continue // freed since /proc/interrupts was read
		}
		x := hostapi.IRQ{IRQ: l.IRQ, Device: dev, Action: action, CPUs: cpuList(aff.Configured)}
		if aff.HasEffective {
			x.Effective = cpuList(aff.Effective)
		}
		f.IRQs = append(f.IRQs, x)
	}
}

// classify names the device of a watched line: an NVMe queue (nvme0q3), a
// configured NIC's MSI vector or an action named "<if>-...".
func classify(l irq.Line, msi map[int]string, ifaces []string) (device, action string) {
	for _, a := range l.Actions {
		if m := nvmeQueue.FindStringSubmatch(a); m != nil {
			return m[1], a
		}
		for _, i := range ifaces {
			if strings.HasPrefix(a, i+"-") || a == i {
				return i, a
			}
		}
	}
	if i, ok := msi[l.IRQ]; ok {
		return i, strings.Join(l.Actions, ",")
	}
	return "", ""
}

// cpuList writes CPUs as the kernel does: "0-3,8".
func cpuList(cpus []int) string {
	var b strings.Builder
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", cpus[i], cpus[j])
		} else {
			fmt.Fprintf(&b, "%d", cpus[i])
		}
		i = j + 1
	}
	return b.String()
}
