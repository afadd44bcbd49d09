package hostfacts

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/walab/walab/internal/hostapi"
	"github.com/walab/walab/internal/irq"
)

// readSystem: hostname, kernel, OS, CPU model and count, memory, NUMA
// nodes, governor, irqbalance.
func readSystem(o Options, f *hostapi.Facts, errf func(string, ...any)) {
	if h, err := os.ReadFile(filepath.Join(o.ProcFS, "sys/kernel/hostname")); err == nil {
		f.Hostname = strings.TrimSpace(string(h))
	} else if f.Hostname, err = os.Hostname(); err != nil {
		errf("hostname: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(o.ProcFS, "sys/kernel/osrelease")); err == nil {
		f.Kernel = strings.TrimSpace(string(b))
	} else {
		errf("kernel: %v", err)
	}
	f.OS = osRelease()
	if f.OS == "" {
		errf("os: no PRETTY_NAME in /etc/os-release or /usr/lib/os-release")
	}
	if b, err := os.ReadFile(filepath.Join(o.ProcFS, "cpuinfo")); err == nil {
		f.CPUModel = cpuModel(b)
	} else {
		errf("cpu model: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(o.SysFS, "devices/system/cpu/online")); err == nil {
		if cpus, err := irq.ParseCPUList(string(b)); err == nil {
			f.CPUs = len(cpus)
		} else {
			errf("cpus: %v", err)
		}
	} else {
		errf("cpus: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(o.ProcFS, "meminfo")); err == nil {
		f.MemoryBytes = memTotal(b)
	} else {
		errf("memory: %v", err)
	}
	if nodes, err := filepath.Glob(filepath.Join(o.SysFS, "devices/system/node/node[0-9]*")); err == nil {
		f.NUMANodes = len(nodes)
	}
	if b, err := os.ReadFile(filepath.Join(o.SysFS, "devices/system/cpu/cpu0/cpufreq/scaling_governor")); err == nil {
		f.Governor = strings.TrimSpace(string(b))
	} // no cpufreq (VMs, containers): absent
}

// osRelease is os-release's PRETTY_NAME (the file of the exporter's mount
// namespace: a containerised exporter reports its image's unless /etc is
// the host's).
func osRelease() string {
	for _, p := range []string{"/etc/os-release", "/usr/lib/os-release"} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "PRETTY_NAME="); ok {
				if u, err := strconv.Unquote(v); err == nil {
					return u
				}
				return strings.Trim(v, `"'`)
			}
		}
	}
	return ""
}

// cpuModel is the first "model name" of /proc/cpuinfo.
func cpuModel(b []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// memTotal is MemTotal of /proc/meminfo in bytes (0 when absent).
func memTotal(b []byte) uint64 {
	if n := meminfoBytes(b, "MemTotal"); n != nil {
		return *n
	}
	return 0
}

// pidsByName lists, for each name, up to max pids whose comm is that name,
// in /proc order: one walk of /proc, one comm read per process, whatever
// the number of names.
func pidsByName(procfs string, names []string, max int) (map[string][]int, error) {
	ents, err := os.ReadDir(procfs)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	out := map[string][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(procfs, e.Name(), "comm"))
		name := strings.TrimSpace(string(b))
		if err != nil || !want[name] || len(out[name]) == max {
			continue
		}
		out[name] = append(out[name], pid)
	}
	return out, nil
}
