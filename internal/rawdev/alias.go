package rawdev

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// fileID is a file's identity: device and inode.
type fileID struct{ dev, ino uint64 }

// aliases are the sysfs directories of the block devices that write the
// same bytes as the device at dir, besides dir and its partitions: its
// parent disk when it is a partition, and, for a loop device, every other
// loop device over the same backing file (with their partitions). Each
// is named for the error messages. backing holds the loop backing file's
// identity, if any: a process with that file open writes the device too.
func (g Guard) aliases(dir string) (devs map[string]string, backing map[fileID]string) {
	devs, backing = map[string]string{}, map[fileID]string{}
	name := filepath.Base(dir)
	if _, err := os.Stat(filepath.Join(dir, "partition")); err == nil {
		devs[filepath.Dir(dir)] = filepath.Base(filepath.Dir(dir)) + " (the disk " + name + " is a partition of)"
	}
	id, path, ok := loopBacking(dir)
	if !ok {
		return devs, backing
	}
	backing[id] = path
	loops, _ := filepath.Glob(filepath.Join(g.Sys, "block", "loop*"))
	for _, l := range loops {
		real, err := filepath.EvalSymlinks(l)
		if err != nil || real == dir {
			continue
		}
		if other, _, ok := loopBacking(real); ok && other == id {
			alias := filepath.Base(real) + " (over the same backing file as " + name + ")"
			devs[real] = alias
			for _, p := range partitions(real) {
				devs[p] = filepath.Base(p) + " (a partition of " + alias + ")"
			}
		}
	}
	return devs, backing
}

// loopBacking is a loop device's backing file identity and path.
func loopBacking(dir string) (fileID, string, bool) {
	b, err := os.ReadFile(filepath.Join(dir, "loop", "backing_file"))
	if err != nil {
		return fileID{}, "", false
	}
	path := strings.TrimSuffix(strings.TrimSpace(string(b)), " (deleted)")
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return fileID{}, path, false
	}
	return fileID{dev: st.Dev, ino: st.Ino}, path, true
}

// partitions lists the partition directories of a block device's sysfs dir.
func partitions(dir string) []string {
	var out []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "partition")); err == nil {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// checkOpeners refuses a device another process has open (a VM's disk, a
// dd, a second loadgen), through any of its numbers, or whose loop backing
// file another process has open: /proc/PID/fd of every process this one
// can see.
func (g Guard) checkOpeners(path string, numbers map[string]string, backing map[fileID]string) error {
	procs, err := os.ReadDir(g.Proc)
	if err != nil {
		return fmt.Errorf("device %s: cannot tell whether another process has it open: %w", path, err)
	}
	self := os.Getpid()
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == self {
			continue
		}
		fdDir := filepath.Join(g.Proc, p.Name(), "fd")
		fds, _ := os.ReadDir(fdDir) // a process gone or not ours to read
		for _, fd := range fds {
			var st unix.Stat_t
			if unix.Stat(filepath.Join(fdDir, fd.Name()), &st) != nil {
				continue
			}
			what := ""
			switch st.Mode & unix.S_IFMT {
			case unix.S_IFBLK:
				what = numbers[fmt.Sprintf("%d:%d", unix.Major(st.Rdev), unix.Minor(st.Rdev))]
			case unix.S_IFREG:
				if b, ok := backing[fileID{dev: st.Dev, ino: st.Ino}]; ok {
					what = "its backing file " + b
				}
			}
			if what != "" {
				return fmt.Errorf("device %s: %s is open by process %d (%s): refused", path, what, pid, comm(g.Proc, p.Name()))
			}
		}
	}
	return nil
}

// comm is a process's command name, or "?".
func comm(proc, pid string) string {
	b, err := os.ReadFile(filepath.Join(proc, pid, "comm"))
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(b))
}
