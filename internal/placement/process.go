package placement

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/prometheus/procfs"
	"github.com/walab/walab/internal/sysfile"
)

// commLen is TASK_COMM_LEN-1: the kernel truncates /proc/<pid>/comm to 15 bytes.
const commLen = 15

// Running reports whether a process named name runs, judged from procfs
// alone: /proc/<pid>/comm, or the base name of argv[0] (for names over 15
// bytes, and for daemons started through an interpreter that rename argv).
// If pidFile is set, its pid is checked first (a stale file whose pid is
// gone or now another program does not count).
func Running(procRoot, name, pidFile string) (bool, error) {
	if name == "" {
		return false, errors.New("process name is empty")
	}
	fsys, err := procfs.NewFS(procRoot)
	if err != nil {
		return false, err
	}
	if pidFile != "" {
		ok, err := pidFileRunning(fsys, name, pidFile)
		if err != nil || ok {
			return ok, err
		}
	}
	procs, err := fsys.AllProcs()
	if err != nil {
		return false, fmt.Errorf("list processes in %s: %w", procRoot, err)
	}
	for _, p := range procs {
		if matches(p, name) {
			return true, nil
		}
	}
	return false, nil
}

func pidFileRunning(fsys procfs.FS, name, pidFile string) (bool, error) {
	s, ok, err := sysfile.ReadOptional(pidFile)
	if !ok {
		return false, err // absent: daemon not started, or removed its pid file on exit
	}
	pid, err := strconv.Atoi(s)
	if err != nil || pid <= 0 {
		return false, fmt.Errorf("pid file %s: %q is not a pid", pidFile, s)
	}
	p, err := fsys.Proc(pid)
	if err != nil {
		return false, nil // stale pid file
	}
	return matches(p, name), nil
}

// matches compares comm and argv[0]; a process that exits while we read it
// simply does not match.
func matches(p procfs.Proc, name string) bool {
	if comm, err := p.Comm(); err == nil {
		if comm == name || len(name) > commLen && comm == name[:commLen] {
			return true
		}
	}
	args, err := p.CmdLine()
	if err != nil || len(args) == 0 {
		return false
	}
	return filepath.Base(args[0]) == name
}
