package hostfacts

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
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
	var perr, derr error
	p.NUMAPolicy, perr = numaPolicy(filepath.Join(dir, "numa_maps"))
	p.Dir, p.DirFrom, derr = processDir(dir)
	for k, err := range map[string]error{"numa_policy": perr, "dir": derr} {
		if err != nil {
			if p.Unread == nil {
				p.Unread = map[string]string{}
			}
			p.Unread[k] = err.Error()
		}
	}
	return p, nil
}

// needsPtrace is the reason a fact of another user's process is not had
// when the kernel refused its /proc file: such files (cwd, numa_maps) need
// ptrace read access to the process.
func needsPtrace(path string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("%s: permission denied: needs ptrace read access to the process (CAP_SYS_PTRACE, or running as its user)", path)
	}
	return err
}

// processDir is a process's working directory, else the --datadir= its
// command line gives (the last one, as mysqld takes it), and where it was
// read; the error says why neither was had.
func processDir(dir string) (string, string, error) {
	d, err := os.Readlink(filepath.Join(dir, "cwd"))
	if err == nil {
		return d, "cwd", nil
	}
	err = needsPtrace(filepath.Join(dir, "cwd"), err)
	b, cerr := os.ReadFile(filepath.Join(dir, "cmdline"))
	if cerr != nil {
		return "", "", err
	}
	if d := cmdlineDatadir(b); d != "" {
		return d, "cmdline", nil
	}
	return "", "", fmt.Errorf("%w; its command line has no --datadir=", err)
}

// cmdlineDatadir is the last --datadir=DIR (or --datadir DIR) of a
// NUL-separated command line, "" without one or with a relative one.
func cmdlineDatadir(b []byte) string {
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	d := ""
	for i, a := range args {
		switch {
		case strings.HasPrefix(a, "--datadir="):
			d = strings.TrimPrefix(a, "--datadir=")
		case a == "--datadir" && i+1 < len(args):
			d = args[i+1]
		}
	}
	if !filepath.IsAbs(d) {
		return ""
	}
	return filepath.Clean(d)
}

// maxNUMAMapsLines bounds the numa_maps read (one line per mapping).
const maxNUMAMapsLines = 4096

// numaPolicy is the policy most mappings of numa_maps carry ("default",
// "bind:0", "interleave:0-1", "prefer:1"): numactl sets the process's
// policy, which its later mappings inherit; the error says why it was
// not had.
func numaPolicy(path string) (string, error) {
	file, err := os.Open(path)
	if err != nil {
		return "", needsPtrace(path, err)
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
	if err := sc.Err(); err != nil {
		return "", needsPtrace(path, err)
	}
	best := ""
	for pol, c := range count {
		if c > count[best] || c == count[best] && pol < best {
			best = pol
		}
	}
	if best == "" {
		return "", fmt.Errorf("%s: no mapping", path)
	}
	return best, nil
}
