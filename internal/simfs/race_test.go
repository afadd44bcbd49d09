package simfs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/testenv"
)

// TestFSRaceLandsNothingOutside is the path race of a loopback that acts
// as root: nobody swaps its own directory on the mount with a symbolic
// link to a root-only directory beside the backing directory
// (RENAME_EXCHANGE), while it creates, unlinks and makes directories in
// the directory it holds open. The daemon re-resolves the directory's
// path between the backing rename and its own record of it; done with
// root's rights, an operation then lands in the link's target. Done with
// the caller's, it fails there as it would on a real filesystem. Bounded
// in count and time; the assertion is that the target is untouched.
func TestFSRaceLandsNothingOutside(t *testing.T) {
	if arg := testenv.Rerun(t); arg != "" {
		mnt, target, _ := strings.Cut(arg, "|")
		raceAsNobody(t, mnt, target)
		return
	}
	back, mnt := mountPerm(t, true)
	target := filepath.Join(filepath.Dir(back), "target") // 0755 root's, inside the 0700 private directory
	require.NoError(t, os.Mkdir(target, 0o755))
	require.NoError(t, os.Chmod(target, 0o755))
	victim := filepath.Join(target, "victim")
	require.NoError(t, os.WriteFile(victim, []byte("root's"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(mnt, "shared"), 0o777))
	require.NoError(t, os.Chmod(filepath.Join(mnt, "shared"), 0o777))

	testenv.RerunAs(t, mnt+"|"+target, "--reuid=65534", "--regid=65534", "--clear-groups")

	names, err := os.ReadDir(target)
	require.NoError(t, err)
	var got []string
	for _, e := range names {
		got = append(got, e.Name())
	}
	require.Equal(t, []string{"victim"}, got, "nobody's operations landed in root's directory outside the backing directory")
	b, err := os.ReadFile(victim)
	require.NoError(t, err)
	require.Equal(t, "root's", string(b))
}

// raceAsNobody is TestFSRaceLandsNothingOutside's half as nobody.
func raceAsNobody(t *testing.T, mnt, target string) {
	shared := filepath.Join(mnt, "shared")
	d, s := filepath.Join(shared, "d"), filepath.Join(shared, "s")
	require.NoError(t, os.Mkdir(d, 0o755))
	require.NoError(t, os.Symlink(target, s))
	dfd, err := unix.Open(d, unix.O_DIRECTORY|unix.O_RDONLY, 0)
	require.NoError(t, err)
	defer unix.Close(dfd)
	sfd, err := unix.Open(shared, unix.O_DIRECTORY|unix.O_RDONLY, 0)
	require.NoError(t, err)
	defer unix.Close(sfd)

	const rounds = 20000
	deadline := time.Now().Add(20 * time.Second)
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < rounds && !stop.Load() && time.Now().Before(deadline); i++ {
			_ = unix.Renameat2(sfd, "d", sfd, "s", unix.RENAME_EXCHANGE)
		}
		stop.Store(true)
	}()
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				if fd, err := unix.Openat(dfd, "f", unix.O_CREAT|unix.O_WRONLY, 0o644); err == nil {
					unix.Close(fd)
					_ = unix.Unlinkat(dfd, "f", 0)
				}
				_ = unix.Unlinkat(dfd, "victim", 0)
				if unix.Mkdirat(dfd, "m", 0o755) == nil {
					_ = unix.Unlinkat(dfd, "m", unix.AT_REMOVEDIR)
				}
			}
		}()
	}
	wg.Wait()
	var st syscall.Stat_t
	require.NoError(t, syscall.Fstat(dfd, &st), "the held directory is still there")
}

// TestFSCallerKeepsItsRights: acting as the caller takes nothing a real
// filesystem gives. nobody creates, writes, reads back, chowns to its own
// group and renames its files; a supplementary group opens a directory of
// that group; the drive counts nobody's writes; root still does all of it
// and gives files away.
func TestFSCallerKeepsItsRights(t *testing.T) {
	rec := &recorder{written: map[uint32]string{}}
	testenv.RequireFUSE(t)
	back, mnt := permDirs(t)
	f, err := Mount(Options{Backing: back, Mountpoint: mnt, Drive: rec, LogicalPages: 4096, PageSize: 4096, AllowOther: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Unmount() })
	shared, grp := filepath.Join(mnt, "shared"), filepath.Join(mnt, "grp")
	require.NoError(t, os.Mkdir(shared, 0o777))
	require.NoError(t, os.Chmod(shared, 0o777))
	require.NoError(t, os.Mkdir(grp, 0o770))
	require.NoError(t, os.Chmod(grp, 0o770))
	require.NoError(t, os.Chown(grp, 0, 4242))

	out, err := asNobody(t, "set -e; cd "+shared+"; printf hello > a; test \"$(cat a)\" = hello; chgrp 65534 a; mv a b; mkdir d; ln -s b l; cat l; rm l; rmdir d")
	require.NoError(t, err, out)
	require.Equal(t, "hello", out)
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(filepath.Join(back, "shared", "b"), &st))
	require.Equal(t, [2]uint32{nobody, nobody}, [2]uint32{st.Uid, st.Gid})
	require.Positive(t, rec.live(), "the drive counted nobody's write")

	cmd := exec.Command("/bin/sh", "-c", "echo x > "+grp+"/mine && cat "+grp+"/mine")
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody, Groups: []uint32{4242}}}
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "a supplementary group's directory: %s", b)
	out, err = asNobody(t, "echo x > "+grp+"/other")
	require.Error(t, err, "without the group: %s", out)

	r := filepath.Join(mnt, "root")
	require.NoError(t, os.WriteFile(r, []byte("root"), 0o600))
	require.NoError(t, os.Rename(r, r+"2"))
	require.NoError(t, os.Chown(r+"2", 1234, 4242))
	require.NoError(t, syscall.Stat(filepath.Join(back, "root2"), &st))
	require.Equal(t, [2]uint32{1234, 4242}, [2]uint32{st.Uid, st.Gid})
	b, err = os.ReadFile(filepath.Join(shared, "b"))
	require.NoError(t, err)
	require.Equal(t, "hello", string(b))
}

// TestFSServiceUserMountWorks: the packaged exporter runs as its own user
// with CAP_SYS_ADMIN only (no CAP_SETUID): its mount, without
// allow_other, serves that user, who is the daemon's own identity.
func TestFSServiceUserMountWorks(t *testing.T) {
	if testenv.Rerun(t) == "" {
		testenv.RequireFUSE(t)
		testenv.RerunAs(t, "svc", "--reuid=65534", "--regid=65534", "--clear-groups",
			"--inh-caps=+sys_admin", "--ambient-caps=+sys_admin")
		return
	}
	base, err := os.MkdirTemp("/tmp", "simfssvc")
	require.NoError(t, err)
	defer os.RemoveAll(base)
	back, mnt := filepath.Join(base, "backing"), filepath.Join(base, "mnt")
	require.NoError(t, os.Mkdir(back, 0o700))
	require.NoError(t, os.Mkdir(mnt, 0o700))
	rec := &recorder{written: map[uint32]string{}}
	f, err := Mount(Options{Backing: back, Mountpoint: mnt, Drive: rec, LogicalPages: 4096, PageSize: 4096})
	require.NoError(t, err)
	defer f.Unmount()
	p := filepath.Join(mnt, "a")
	require.NoError(t, os.WriteFile(p, []byte("hello"), 0o600))
	require.NoError(t, os.Rename(p, p+"2"))
	b, err := os.ReadFile(p + "2")
	require.NoError(t, err)
	require.Equal(t, "hello", string(b))
	require.Positive(t, rec.live())
}
