package simfs

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

const statusNobody = "Name:\tsh\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t42\nPid:\t42\n" +
	"Uid:\t65534\t65534\t65534\t65534\nGid:\t65534\t65534\t65534\t4242\nFDSize:\t64\nGroups:\t4242 27 \nNStgid:\t42\n"

func TestParseStatus(t *testing.T) {
	cr, ok := parseStatus([]byte(statusNobody))
	require.True(t, ok)
	require.Equal(t, creds{uid: 65534, gid: 4242, groups: []uint32{4242, 27}}, cr, "the fourth fields are fsuid and fsgid")

	cr, ok = parseStatus([]byte(strings.Replace(statusNobody, "Groups:\t4242 27 ", "Groups:\t", 1)))
	require.True(t, ok)
	require.Empty(t, cr.groups)

	for name, bad := range map[string]string{
		"no Groups":        strings.Replace(statusNobody, "Groups:", "Gruops:", 1),
		"no Uid":           strings.Replace(statusNobody, "Uid:", "Xid:", 1),
		"three ids":        strings.Replace(statusNobody, "Gid:\t65534\t65534\t65534\t4242", "Gid:\t1\t2\t3", 1),
		"a group not a id": strings.Replace(statusNobody, "4242 27", "4242 x", 1),
		"an id too big":    strings.Replace(statusNobody, "Uid:\t65534\t65534\t65534\t65534", "Uid:\t1\t1\t1\t4294967296", 1),
		"cut short":        statusNobody[:60],
	} {
		_, ok := parseStatus([]byte(bad))
		require.False(t, ok, name)
	}
}

// FuzzParseStatus: any input is read without panicking, and what it
// accepts, written back as a status, reads the same.
func FuzzParseStatus(f *testing.F) {
	f.Add([]byte(statusNobody))
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		cr, ok := parseStatus(b)
		if !ok {
			return
		}
		var g []string
		for _, x := range cr.groups {
			g = append(g, fmt.Sprint(x))
		}
		s := fmt.Sprintf("Uid:\t0\t0\t0\t%d\nGid:\t0\t0\t0\t%d\nGroups:\t%s\n", cr.uid, cr.gid, strings.Join(g, " "))
		again, ok := parseStatus([]byte(s))
		require.True(t, ok, s)
		require.Equal(t, cr.uid, again.uid)
		require.Equal(t, cr.gid, again.gid)
		require.Equal(t, len(cr.groups), len(again.groups))
	})
}

// threadIdentity is the calling thread's fsuid, fsgid and groups.
func threadIdentity(t *testing.T) (int, int, []uint32) {
	u, _ := unix.SetfsuidRetUid(-1)
	g, _ := unix.SetfsgidRetGid(-1)
	gs := make([]uint32, 64)
	n, _, errno := unix.RawSyscall(unix.SYS_GETGROUPS, uintptr(len(gs)), uintptr(unsafe.Pointer(&gs[0])), 0)
	require.Zero(t, errno)
	return u, g, gs[:n]
}

// TestAsCallerTakesAndGivesBackTheCallersIdentity: the operation runs
// with a real caller's fsuid, fsgid and groups (a process of nobody's
// with group 4242), and the thread is root's again after it.
func TestAsCallerTakesAndGivesBackTheCallersIdentity(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to take another identity")
	}
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody, Groups: []uint32{4242}}}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	ctx := fuse.NewContext(context.Background(), &fuse.Caller{Owner: fuse.Owner{Uid: nobody, Gid: nobody}, Pid: uint32(cmd.Process.Pid)})

	runtime.LockOSThread() // asCaller's unlock leaves this goroutine on this thread
	defer runtime.UnlockOSThread()
	u0, g0, gs0 := threadIdentity(t)
	var u, g int
	var gs []uint32
	require.Zero(t, asCaller(ctx, func() syscall.Errno { u, g, gs = threadIdentity(t); return 0 }))
	require.Equal(t, []any{nobody, nobody, []uint32{4242}}, []any{u, g, gs})
	u1, g1, gs1 := threadIdentity(t)
	require.Equal(t, []any{u0, g0, gs0}, []any{u1, g1, gs1}, "the thread is the daemon's again")

	// The operation's error is the caller's.
	require.Equal(t, syscall.ENOENT, asCaller(ctx, func() syscall.Errno { return syscall.ENOENT }))
}

// TestAsCallerRefusesAnUnknownCaller: a caller whose process is gone,
// unseen (another pid namespace: pid 0) or of another identity than the
// request's is refused, and the operation is not run.
func TestAsCallerRefusesAnUnknownCaller(t *testing.T) {
	for name, c := range map[string]fuse.Caller{
		"pid 0":         {Owner: fuse.Owner{Uid: nobody, Gid: nobody}},
		"pid of root's": {Owner: fuse.Owner{Uid: nobody, Gid: nobody}, Pid: uint32(os.Getpid())},
		"no such pid":   {Owner: fuse.Owner{Uid: nobody, Gid: nobody}, Pid: 1 << 30},
	} {
		ran := false
		errno := asCaller(fuse.NewContext(context.Background(), &c), func() syscall.Errno { ran = true; return 0 })
		require.Equal(t, syscall.EACCES, errno, name)
		require.False(t, ran, name)
	}
}

// TestOtherThanDaemon: root and the daemon's own identity run as the
// daemon; any other uid, or the daemon's uid with another gid, does not.
func TestOtherThanDaemon(t *testing.T) {
	uid, gid := uint32(os.Geteuid()), uint32(os.Getegid())
	owner := func(u, g uint32) *fuse.Caller { return &fuse.Caller{Owner: fuse.Owner{Uid: u, Gid: g}} }
	require.False(t, otherThanDaemon(owner(0, 5)))
	require.False(t, otherThanDaemon(owner(uid, gid)))
	require.True(t, otherThanDaemon(owner(nobody, nobody)))
	if uid != 0 {
		require.True(t, otherThanDaemon(owner(uid, gid+1)))
	}
}
