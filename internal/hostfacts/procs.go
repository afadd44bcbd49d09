package hostfacts

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/walab/walab/internal/hostapi"
)

// readProcesses lists the watched processes with their CPU and memory
// node lists and NUMA policy, and whether irqbalance runs: one walk of
// /proc for all of them.
func readProcesses(o Options, f *hostapi.Facts, errf func(string, ...any)) {
	byName, err := pidsByName(o.ProcFS, append([]string{"irqbalance"}, o.Processes...), MaxProcesses+1)
	if err != nil {
		errf("processes: %v", err)
		return
	}
	running := len(byName["irqbalance"]) > 0
	f.Irqbalance = &running
	for _, name := range o.Processes {
		pids := byName[name]
		if len(pids) > MaxProcesses {
			pids = pids[:MaxProcesses]
			f.Truncated = append(f.Truncated, fmt.Sprintf("processes named %s (at most %d)", name, MaxProcesses))
		}
		for _, pid := range pids {
			p, err := readProcess(o.ProcFS, name, pid)
			if err != nil {
				continue // exited meanwhile
			}
			f.Processes = append(f.Processes, p)
		}
	}
}

func readProcess(procfs, name string, pid int) (hostapi.Process, error) {
	p := hostapi.Process{Name: name, PID: pid}
	dir := filepath.Join(procfs, strconv.Itoa(pid))
	b, err := os.ReadFile(filepath.Join(dir, "status"))
	if err != nil {
		return p, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(l, ":")
		switch {
		case !ok:
		case k == "Cpus_allowed_list":
			p.CPUs = strings.TrimSpace(v)
		case k == "Mems_allowed_list":
			p.Mems = strings.TrimSpace(v)
		}
	}
	p.NUMAPolicy = numaPolicy(filepath.Join(dir, "numa_maps"))
	p.Dir = processDir(dir)
	return p, nil
}

// processDir is a process's working directory, "" when unreadable (it
// needs the right to ptrace-read the process, as root has).
func processDir(dir string) string {
	d, err := os.Readlink(filepath.Join(dir, "cwd"))
	if err != nil {
		return ""
	}
	return d
}

// maxNUMAMapsLines bounds the numa_maps read (one line per mapping).
const maxNUMAMapsLines = 4096

// numaPolicy is the policy most mappings of numa_maps carry ("default",
// "bind:0", "interleave:0-1", "prefer:1"): numactl sets the process's
// policy, which its later mappings inherit. "" when unreadable.
func numaPolicy(path string) string {
	file, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer file.Close()
	count := map[string]int{}
	sc := bufio.NewScanner(file)
	for n := 0; sc.Scan() && n < maxNUMAMapsLines; n++ {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 {
			count[f[1]]++
		}
	}
	best := ""
	for pol, c := range count {
		if c > count[best] || c == count[best] && pol < best {
			best = pol
		}
	}
	return best
}
