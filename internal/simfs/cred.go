package simfs

import (
	"bytes"
	"context"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// creds are a caller's filesystem identity: its fsuid, fsgid and
// supplementary groups.
type creds struct {
	uid, gid uint32
	groups   []uint32
}

// asCaller runs op, which touches the backing filesystem by path, on a
// thread whose fsuid, fsgid and supplementary groups are the FUSE
// caller's, so the backing filesystem checks every step of the path the
// daemon resolves as it would the caller's own: a caller who swaps a
// directory for a symbolic link while the daemon resolves it reaches
// only what it could reach itself. A caller with uid 0 or the daemon's
// own uid and gid, and a call without a caller (the daemon's own), run
// as the daemon. A daemon without CAP_SETUID and CAP_SETGID refuses other
// callers (EPERM) rather than act for them with its own rights. A caller
// whose groups cannot be read (gone, another pid namespace, changed its
// identity meanwhile) is refused with EACCES.
func asCaller(ctx context.Context, op func() syscall.Errno) syscall.Errno {
	c, ok := fuse.FromContext(ctx)
	if !ok || actAsRoot || !otherThanDaemon(c) {
		return op()
	}
	cr, errno := groupCache.creds(c)
	if errno != 0 {
		return errno
	}
	runtime.LockOSThread()
	if errno := cr.enter(); errno != 0 {
		if leave() == 0 {
			runtime.UnlockOSThread()
		}
		return errno
	}
	errno = op()
	// A thread that cannot get root's identity back stays locked to this
	// goroutine (Go ends it with the goroutine), never to serve another.
	if leave() == 0 {
		runtime.UnlockOSThread()
	}
	return errno
}

// otherThanDaemon reports whether the caller may have fewer rights than
// the daemon: not root, nor the daemon's own uid and gid (the packaged
// exporter runs as its own user, and without allow_other that user is the
// only caller; it has no CAP_SETUID to change identity).
func otherThanDaemon(c *fuse.Caller) bool {
	return c.Uid != 0 && (c.Uid != uint32(syscall.Geteuid()) || c.Gid != uint32(syscall.Getegid()))
}

// actAsRoot turns asCaller off: the loopback as it was before, for
// BenchmarkCallerIdentity's comparison only.
var actAsRoot = false

// daemonGroups are the daemon's supplementary groups, given back to a
// thread after each caller's operation.
var daemonGroups = func() []uint32 {
	gs, _ := unix.Getgroups()
	out := make([]uint32, len(gs))
	for i, g := range gs {
		out[i] = uint32(g)
	}
	return out
}()

// enter gives the locked thread the caller's identity: groups, then
// fsgid, then fsuid, each checked (setfsuid and setfsgid do not fail,
// they leave the identity as it was).
func (cr creds) enter() syscall.Errno {
	if errno := setThreadGroups(cr.groups); errno != 0 {
		return errno
	}
	_, _ = unix.SetfsgidRetGid(int(cr.gid))
	if g, _ := unix.SetfsgidRetGid(-1); uint32(g) != cr.gid {
		return syscall.EPERM
	}
	_, _ = unix.SetfsuidRetUid(int(cr.uid))
	if u, _ := unix.SetfsuidRetUid(-1); uint32(u) != cr.uid {
		return syscall.EPERM
	}
	return 0
}

// leave gives the locked thread the daemon's identity back.
func leave() syscall.Errno {
	uid, gid := syscall.Geteuid(), syscall.Getegid()
	_, _ = unix.SetfsuidRetUid(uid)
	_, _ = unix.SetfsgidRetGid(gid)
	u, _ := unix.SetfsuidRetUid(-1)
	g, _ := unix.SetfsgidRetGid(-1)
	if u != uid || g != gid {
		return syscall.EPERM
	}
	return setThreadGroups(daemonGroups)
}

// setThreadGroups sets the calling thread's supplementary groups only:
// the raw system call, where syscall.Setgroups sets every thread's.
func setThreadGroups(gs []uint32) syscall.Errno {
	var p unsafe.Pointer
	if len(gs) > 0 {
		p = unsafe.Pointer(&gs[0])
	}
	_, _, errno := unix.RawSyscall(unix.SYS_SETGROUPS, uintptr(len(gs)), uintptr(p), 0)
	return errno
}

// credCache keeps each caller's groups a second: reading
// /proc/<pid>/status is most of what acting as the caller costs (issue
// 54's bench, bench/RESULTS-sim.md). A process without CAP_SETGID cannot
// change its groups; one with it could take back any it dropped; a pid
// reused within the second by a process of the same fsuid and fsgid
// would need the whole pid space cycled in it.
type credCache struct {
	mu sync.Mutex
	m  map[fuse.Caller]cachedCreds
}

type cachedCreds struct {
	cr   creds
	read time.Time
}

var groupCache = credCache{m: map[fuse.Caller]cachedCreds{}}

const credTTL = time.Second

func (cc *credCache) creds(c *fuse.Caller) (creds, syscall.Errno) {
	now := time.Now()
	cc.mu.Lock()
	e, ok := cc.m[*c]
	cc.mu.Unlock()
	if ok && now.Sub(e.read) < credTTL {
		return e.cr, 0
	}
	cr, errno := callerCreds(c)
	if errno != 0 {
		return cr, errno
	}
	cc.mu.Lock()
	if len(cc.m) >= 4096 {
		clear(cc.m)
	}
	cc.m[*c] = cachedCreds{cr, now}
	cc.mu.Unlock()
	return cr, 0
}

// callerCreds reads the caller's groups from /proc/<pid>/status, where
// the kernel's FUSE request names the calling thread, and checks that
// its fsuid and fsgid there are the request's (the pid was not reused).
func callerCreds(c *fuse.Caller) (creds, syscall.Errno) {
	if c.Pid == 0 {
		return creds{}, syscall.EACCES
	}
	var buf [4096]byte
	fd, err := unix.Open("/proc/"+strconv.FormatUint(uint64(c.Pid), 10)+"/status", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return creds{}, syscall.EACCES
	}
	n, err := unix.Read(fd, buf[:])
	unix.Close(fd)
	if err != nil || n <= 0 {
		return creds{}, syscall.EACCES
	}
	cr, ok := parseStatus(buf[:n])
	if !ok || cr.uid != c.Uid || cr.gid != c.Gid {
		return creds{}, syscall.EACCES
	}
	return cr, 0
}

// parseStatus reads the fsuid and fsgid (the fourth field of Uid: and
// Gid:) and the Groups: line of a /proc/<pid>/status; ok is false unless
// all three are there and well formed.
func parseStatus(b []byte) (creds, bool) {
	var cr creds
	var have int
	for line := range bytes.Lines(b) {
		key, val, found := bytes.Cut(bytes.TrimRight(line, "\n"), []byte(":"))
		if !found {
			continue
		}
		fields := bytes.Fields(val)
		switch string(key) {
		case "Uid", "Gid":
			if len(fields) != 4 {
				return creds{}, false
			}
			id, err := strconv.ParseUint(string(fields[3]), 10, 32)
			if err != nil {
				return creds{}, false
			}
			if key[0] == 'U' {
				cr.uid, have = uint32(id), have|1
			} else {
				cr.gid, have = uint32(id), have|2
			}
		case "Groups":
			cr.groups = make([]uint32, 0, len(fields))
			for _, f := range fields {
				g, err := strconv.ParseUint(string(f), 10, 32)
				if err != nil {
					return creds{}, false
				}
				cr.groups = append(cr.groups, uint32(g))
			}
			have |= 4
		}
	}
	return cr, have == 7
}
