package simfs

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/testenv"
)

const nobody = 65534

// asNobody runs script with sh as uid and gid 65534 and no supplementary
// groups (setpriv --reuid=65534 --regid=65534 --clear-groups).
func asNobody(t *testing.T, script string) (string, error) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody, Groups: []uint32{}}}
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// permDirs is a base directory nobody can enter, holding the mountpoint,
// and the backing directory inside a 0700 directory of its own, as
// docs/simfs.md lays them out.
func permDirs(t *testing.T) (back, mnt string) {
	base, err := os.MkdirTemp("", "simfsperm")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(base, 0o755))
	if _, err := asNobody(t, "cd "+base); err != nil { // $TMPDIR is private: /tmp is not
		require.NoError(t, os.Remove(base))
		base, err = os.MkdirTemp("/tmp", "simfsperm")
		require.NoError(t, err)
		require.NoError(t, os.Chmod(base, 0o755))
	}
	t.Cleanup(func() { _ = os.RemoveAll(base) })
	back, mnt = filepath.Join(base, "private", "backing"), filepath.Join(base, "mnt")
	require.NoError(t, os.MkdirAll(back, 0o755))
	require.NoError(t, os.Chmod(filepath.Dir(back), 0o700))
	require.NoError(t, os.Mkdir(mnt, 0o755))
	return back, mnt
}

func mountPerm(t *testing.T, allowOther bool) (back, mnt string) {
	testenv.RequireFUSE(t)
	back, mnt = permDirs(t)
	f, err := Mount(Options{Backing: back, Mountpoint: mnt, Drive: &recorder{written: map[uint32]string{}},
		LogicalPages: 4096, PageSize: 4096, AllowOther: allowOther})
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Unmount() })
	return back, mnt
}

// TestFSOtherUserGetsNothingWithoutAllowOther: by default only the
// mounting user (root) reaches the mount at all.
func TestFSOtherUserGetsNothingWithoutAllowOther(t *testing.T) {
	_, mnt := mountPerm(t, false)
	require.NoError(t, os.WriteFile(filepath.Join(mnt, "open"), []byte("x"), 0o644))
	out, err := asNobody(t, "ls "+mnt+" && cat "+mnt+"/open")
	require.Error(t, err, "nobody reached a mount without allow_other: %s", out)
	require.Contains(t, out, "Permission denied")
}

// TestFSGrantsNothingARealFilesystemWouldNot is issue 54's attack, as
// nobody, on a mount with allow_other: the kernel checks modes and
// ownership (default_permissions), files are created owned by their
// creator, chown to root is refused, a setuid bit gives nothing (nosuid),
// a write clears another owner's setuid bit, and the backing files are
// out of reach.
func TestFSGrantsNothingARealFilesystemWouldNot(t *testing.T) {
	back, mnt := mountPerm(t, true)
	require.NoError(t, os.WriteFile(filepath.Join(mnt, "secret"), []byte("root only"), 0o600))
	require.NoError(t, os.Mkdir(filepath.Join(mnt, "private"), 0o700))
	require.NoError(t, os.Mkdir(filepath.Join(mnt, "shared"), 0o777|os.ModeSticky))
	require.NoError(t, os.Chmod(filepath.Join(mnt, "shared"), 0o777|os.ModeSticky))
	suid := filepath.Join(mnt, "shared", "rootsuid")
	require.NoError(t, os.WriteFile(suid, []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.Chmod(suid, 0o777|os.ModeSetuid))

	for _, script := range []string{
		"cat " + mnt + "/secret",         // a 0600 root file
		"echo x > " + mnt + "/private/x", // a 0700 root directory
		"echo x > " + mnt + "/x",         // the root's 0755 root directory
		"echo x >> " + mnt + "/secret",   // append to it
		"ls " + back,                     // the backing files, past the mount's checks
		"rm " + mnt + "/shared/rootsuid", // another user's file in a sticky directory
		"chmod 777 " + mnt + "/secret",   // another user's mode
	} {
		out, err := asNobody(t, script)
		require.Error(t, err, "as nobody, %q succeeded: %s", script, out)
	}

	// A hard link to another user's file, where the kernel forbids it
	// on every filesystem (fs.protected_hardlinks).
	if b, err := os.ReadFile("/proc/sys/fs/protected_hardlinks"); err == nil && strings.TrimSpace(string(b)) == "1" {
		out, err := asNobody(t, "ln "+mnt+"/secret "+mnt+"/shared/l")
		require.Error(t, err, "nobody linked root's 0600 file: %s", out)
	}

	x := filepath.Join(mnt, "shared", "x")
	out, err := asNobody(t, "cp /usr/bin/id "+x)
	require.NoError(t, err, out)
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(filepath.Join(back, "shared", "x"), &st))
	require.Equal(t, [2]uint32{nobody, nobody}, [2]uint32{st.Uid, st.Gid}, "a file is its creator's")
	out, err = asNobody(t, "chown 0:0 "+x)
	require.Error(t, err, "nobody gave a file to root: %s", out)
	require.NoError(t, syscall.Stat(filepath.Join(back, "shared", "x"), &st))
	require.Equal(t, uint32(nobody), st.Uid)

	// As root, make it root's and setuid: on a nosuid mount running it
	// still gives the caller's own euid.
	require.NoError(t, os.Chown(x, 0, 0))
	require.NoError(t, os.Chmod(x, 0o755|os.ModeSetuid))
	out, err = asNobody(t, x+" -u")
	require.NoError(t, err, out)
	require.Equal(t, "65534", out, "a setuid root file on the mount ran as root")

	// A write by another user clears the setuid bit, as on a real filesystem.
	out, err = asNobody(t, "echo >> "+suid)
	require.NoError(t, err, out)
	require.NoError(t, syscall.Stat(filepath.Join(back, "shared", "rootsuid"), &st))
	require.Zero(t, st.Mode&syscall.S_ISUID, "nobody's write left root's setuid bit")
}

// TestMountRefusesBadDirectories: a mountpoint with files (the mount would
// hide them), a symbolic link as mountpoint or backing (the mount would
// land where the link points), and a backing directory other users can
// reach (its files are not under the mount's checks there) are refused.
func TestMountRefusesBadDirectories(t *testing.T) {
	testenv.RequireFUSE(t)
	try := func(back, mnt string) error {
		f, err := Mount(Options{Backing: back, Mountpoint: mnt, Drive: &recorder{written: map[uint32]string{}},
			LogicalPages: 64, PageSize: 4096})
		if err == nil {
			_ = f.Unmount()
		}
		return err
	}
	back, mnt := permDirs(t)
	require.NoError(t, os.WriteFile(filepath.Join(mnt, "mine"), nil, 0o644))
	require.ErrorContains(t, try(back, mnt), "not empty")
	require.NoError(t, os.Remove(filepath.Join(mnt, "mine")))

	empty := t.TempDir()
	link := filepath.Join(filepath.Dir(mnt), "link")
	require.NoError(t, os.Symlink(empty, link))
	require.ErrorContains(t, try(back, link), "symbolic link")
	require.NoError(t, os.Chmod(filepath.Dir(back), 0o755))
	require.ErrorContains(t, try(back, mnt), "other users can reach the backing directory")
	require.NoError(t, os.Chmod(filepath.Dir(back), 0o700))
	require.NoError(t, try(back, mnt))
}

// TestMountDetachesDeadMounts: an exporter killed with -9 leaves its mount
// dead (ENOTCONN); the next mount, wherever it is, unmounts it.
func TestMountDetachesDeadMounts(t *testing.T) {
	testenv.RequireFUSE(t)
	back, mnt := permDirs(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperMount$")
	cmd.Env = append(os.Environ(), "SIMFS_HELPER_BACKING="+back, "SIMFS_HELPER_MNT="+mnt)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line := make([]byte, 6)
	_, err = io.ReadFull(stdout, line)
	require.NoError(t, err)
	require.Equal(t, "ready\n", string(line))
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	var st unix.Statfs_t
	require.ErrorIs(t, unix.Statfs(mnt, &st), syscall.ENOTCONN, "the killed exporter's mount is dead")

	back2, mnt2 := permDirs(t)
	f, err := Mount(Options{Backing: back2, Mountpoint: mnt2, Drive: &recorder{written: map[uint32]string{}},
		LogicalPages: 64, PageSize: 4096})
	require.NoError(t, err)
	defer f.Unmount()
	require.NoError(t, unix.Statfs(mnt, &st), "the dead mount is gone")
	require.NotEqual(t, int64(fuseSuperMagic), st.Type)
}

const fuseSuperMagic = 0x65735546

// TestHelperMount is TestMountDetachesDeadMounts's exporter: it mounts
// and waits to be killed.
func TestHelperMount(t *testing.T) {
	back, mnt := os.Getenv("SIMFS_HELPER_BACKING"), os.Getenv("SIMFS_HELPER_MNT")
	if back == "" {
		t.Skip("run by TestMountDetachesDeadMounts")
	}
	_, err := Mount(Options{Backing: back, Mountpoint: mnt, Drive: &recorder{written: map[uint32]string{}},
		LogicalPages: 64, PageSize: 4096})
	require.NoError(t, err)
	os.Stdout.WriteString("ready\n")
	select {}
}
