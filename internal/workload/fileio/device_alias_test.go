package fileio

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
	"github.com/walab/walab/internal/workload"
)

// attachLoop makes a loop device over img and detaches it at the end.
func attachLoop(t *testing.T, img string) string {
	t.Helper()
	losetup := testenv.RequireBinary(t, "losetup")
	out, err := exec.Command(losetup, "-f", "--show", img).CombinedOutput()
	if err != nil {
		testenv.Missing(t, "losetup -f --show: %v: %s", err, out)
	}
	loop := strings.TrimSpace(string(out))
	t.Cleanup(func() { _ = exec.Command(losetup, "-d", loop).Run() })
	return loop
}

func loopImage(t *testing.T) string {
	t.Helper()
	img := filepath.Join(t.TempDir(), "loop.img")
	require.NoError(t, os.WriteFile(img, nil, 0o644))
	require.NoError(t, os.Truncate(img, 64<<20))
	return img
}

// holdOpen starts a process that keeps path open (as a VM keeps its disk)
// and stops it at the end.
func holdOpen(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	cmd := exec.Command(testenv.RequireBinary(t, "sleep"), "600")
	cmd.Stdin = f
	require.NoError(t, cmd.Start())
	f.Close() // only the child holds it now
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd.Process.Pid
}

// TestDeviceGuardAliases (issue 33 item 4): the guard looked at one block
// device's own claims, so a second loop device on the backing file of a
// mounted one passed (and the mounted ext4 was destroyed), and so did a
// loop device a running VM had open. Every alias is checked now.
func TestDeviceGuardAliases(t *testing.T) {
	img := loopImage(t)
	a, b := attachLoop(t, img), attachLoop(t, img)
	_, err := DefaultGuard.CheckDevice(b)
	require.NoError(t, err, "nothing uses either yet")

	t.Run("second loop device over the backing file of a mounted one", func(t *testing.T) {
		mkfs := testenv.RequireBinary(t, "mkfs.ext4")
		out, err := exec.Command(mkfs, "-q", a).CombinedOutput()
		require.NoError(t, err, "%s", out)
		mnt := t.TempDir()
		out, err = exec.Command(testenv.RequireBinary(t, "mount"), a, mnt).CombinedOutput()
		if err != nil {
			testenv.Missing(t, "mount %s: %v: %s", a, err, out)
		}
		defer exec.Command("umount", mnt).Run()
		_, err = DefaultGuard.CheckDevice(b)
		require.ErrorContains(t, err, "is mounted on "+mnt)
		require.ErrorContains(t, err, filepath.Base(a))
	})

	t.Run("loop device open by another process", func(t *testing.T) {
		pid := holdOpen(t, a)
		_, err := DefaultGuard.CheckDevice(a)
		require.ErrorContains(t, err, "is open by process")
		require.ErrorContains(t, err, "sleep")
		_, err = DefaultGuard.CheckDevice(b)
		require.ErrorContains(t, err, "is open by process", "through its alias too (pid %d)", pid)
	})

	t.Run("backing file open by another process", func(t *testing.T) {
		holdOpen(t, img)
		_, err := DefaultGuard.CheckDevice(b)
		require.ErrorContains(t, err, "backing file")
		require.ErrorContains(t, err, "is open by process")
	})
	_, err = DefaultGuard.CheckDevice(b)
	require.NoError(t, err, "free again")
}

// TestPrepareChecksFreeSpace (issue 33, low): --file-total-size=1000T used
// to fill the filesystem to 100 %; prepare refuses before writing a byte.
func TestPrepareChecksFreeSpace(t *testing.T) {
	dir := t.TempDir()
	o := opts(dir, RndWr)
	o.TotalSize = 1000 << 40
	w, err := New(o)
	require.NoError(t, err)
	err = w.Prepare(context.Background(), workload.PrepareOptions{})
	require.ErrorContains(t, err, "free")
	require.ErrorContains(t, err, "--file-total-size")
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, ents, "nothing written, not even the marker")
}

// TestInterruptedPrepareOnDevice (issue 33, low): a prepare of a raw device
// stopped half-way leaves a marker in --file-dir that run refuses, until a
// prepare finishes.
func TestInterruptedPrepareOnDevice(t *testing.T) {
	loop := attachLoop(t, loopImage(t))
	o := opts(t.TempDir(), RndWr)
	o.Device, o.DestroyData, o.TotalSize = loop, true, 0 // the whole 64 MiB
	w, err := New(o)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err = w.Prepare(ctx, workload.PrepareOptions{Progress: func(workload.ProgressEvent) {
		if n++; n == 3 {
			cancel()
		}
	}})
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, w.Init(context.Background()), "did not finish")
	// From another --file-dir too: the device's marker is the host's, not
	// the directory's (issue 54, a residual of issue 42).
	o2 := o
	o2.Dir = t.TempDir()
	w2, err := New(o2)
	require.NoError(t, err)
	require.ErrorContains(t, w2.Init(context.Background()), "did not finish")

	require.NoError(t, w.Prepare(context.Background(), workload.PrepareOptions{}))
	require.NoError(t, w.Init(context.Background()))
	require.NoError(t, w.closeLocked())
	require.NoError(t, w2.Init(context.Background()))
	require.NoError(t, w2.closeLocked())
}
