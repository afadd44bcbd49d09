package fileio

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/runner"
	"github.com/walab/walab/internal/testenv"
	"github.com/walab/walab/internal/workload"
)

// TestMain keeps the raw-device prepare markers of the tests out of the
// host's /var/lib/walab/fileio.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "walab-fileio-state-")
	if err != nil {
		panic(err)
	}
	DeviceStateDir = filepath.Join(dir, "state")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func opts(dir, mode string) Options {
	return Options{FileNum: 4, BlockSize: 4096, TotalSize: 1 << 20, TestMode: mode, IOMode: "sync",
		FsyncFreq: 10, FsyncEnd: true, FsyncMode: "fsync", RWRatio: 1.5, Dir: dir}
}

func run(t *testing.T, o Options, events int64, threads int) *runner.Result {
	t.Helper()
	w, err := New(o)
	require.NoError(t, err)
	res, err := runner.Run(context.Background(), runner.Config{Workload: w, Report: registered(t).Report, Threads: threads, Events: events, Seed: 7})
	require.NoError(t, err)
	return res
}

// registered is fileio's registration, as loadgen finds it.
func registered(t *testing.T) workload.Spec {
	t.Helper()
	specs := workload.Specs()
	i := slices.IndexFunc(specs, func(s workload.Spec) bool { return s.Name == "fileio" })
	require.GreaterOrEqual(t, i, 0, "fileio is not registered")
	return specs[i]
}

// TestEveryModeOnFiles: prepare a 1 MiB set of 4 files on this machine's
// filesystem, run each test mode, and check what each moved: every request
// is one block, writes are fsynced every 10 per thread (4 files each
// time), reads never are, and the bytes are on disk.
func TestEveryModeOnFiles(t *testing.T) {
	dir := t.TempDir()
	w, err := New(opts(dir, ""))
	require.NoError(t, err)
	require.NoError(t, w.Prepare(context.Background(), workload.PrepareOptions{}))
	before, err := os.ReadFile(filepath.Join(dir, "test_file.0"))
	require.NoError(t, err)
	require.Len(t, before, 1<<18)

	for _, mode := range Modes {
		t.Run(mode, func(t *testing.T) {
			for _, io := range []string{"sync", "mmap"} {
				o := opts(dir, mode)
				o.IOMode = io
				res := run(t, o, 440, 2)
				require.True(t, res.IO)
				require.Zero(t, res.Errors)
				require.Equal(t, uint64(440), res.Reads+res.Writes+res.Other, "%s %s: events are requests and fsyncs", mode, io)
				require.Equal(t, res.Reads*4096, res.ReadBytes)
				require.Equal(t, res.Writes*4096, res.WrittenBytes)
				switch mode {
				case SeqRd, RndRd:
					require.Zero(t, res.Writes+res.Other)
				case RndRW:
					require.NotZero(t, res.Reads)
					require.NotZero(t, res.Writes)
				default:
					require.Zero(t, res.Reads)
					// Each thread fsyncs the 4 files after every 10 writes.
					require.InDelta(t, float64(res.Writes)/10*4, float64(res.Other), 8, "%s %s", mode, io)
				}
				var sum strings.Builder
				res.WriteSummary(&sum)
				require.Contains(t, sum.String(), "File operations:\n    reads/s:")
				require.Contains(t, sum.String(), "written, MiB/s:")
			}
		})
	}
	after, err := os.ReadFile(filepath.Join(dir, "test_file.0"))
	require.NoError(t, err)
	require.NotEqual(t, before, after, "the write modes changed the file on disk")

	checks, err := w.Check(context.Background())
	require.NoError(t, err)
	require.True(t, checks[0].Passed, checks[0].Detail)
	require.NoError(t, w.Cleanup(context.Background()))
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, ents, "cleanup removed the files and the marker")
}

// TestSequentialMergeAndDirect: 4 merged 4 KiB requests per event with
// O_DIRECT walk the set in order, 16 KiB at a time.
func TestSequentialMergeAndDirect(t *testing.T) {
	dir := t.TempDir()
	o := opts(dir, SeqWr)
	o.ExtraFlags, o.MergedRequests, o.FsyncFreq = []string{"direct"}, 4, 0
	w, err := New(o)
	require.NoError(t, err)
	require.NoError(t, w.Prepare(context.Background(), workload.PrepareOptions{}))
	res := run(t, o, 64, 1)
	require.Equal(t, uint64(64), res.Writes)
	require.Equal(t, uint64(64*16384), res.WrittenBytes, "a whole file set (1 MiB) in 16 KiB requests")
	require.Zero(t, res.Other)
}

// TestOwnFilesOnly: prepare, run and cleanup never touch test files that
// loadgen did not make, nor follow a symlink.
func TestOwnFilesOnly(t *testing.T) {
	dir := t.TempDir()
	foreign := filepath.Join(dir, "test_file.0")
	require.NoError(t, os.WriteFile(foreign, []byte("someone else's"), 0o644))
	w, err := New(opts(dir, RndWr))
	require.NoError(t, err)
	require.ErrorContains(t, w.Prepare(context.Background(), workload.PrepareOptions{}), "loadgen did not make it")
	require.ErrorContains(t, w.Cleanup(context.Background()), "loadgen did not make it")
	require.ErrorContains(t, w.Init(context.Background()), "no file set prepared by loadgen")
	b, err := os.ReadFile(foreign)
	require.NoError(t, err)
	require.Equal(t, "someone else's", string(b))

	// A prepared set whose file became a symlink is refused, not followed.
	dir2 := t.TempDir()
	w2, err := New(opts(dir2, RndWr))
	require.NoError(t, err)
	require.NoError(t, w2.Prepare(context.Background(), workload.PrepareOptions{}))
	target := filepath.Join(t.TempDir(), "precious")
	require.NoError(t, os.WriteFile(target, []byte("keep"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(dir2, "test_file.1")))
	require.NoError(t, os.Symlink(target, filepath.Join(dir2, "test_file.1")))
	require.ErrorContains(t, w2.Init(context.Background()), "not a regular file")
	require.ErrorContains(t, w2.Cleanup(context.Background()), "not a regular file")
	b, err = os.ReadFile(target)
	require.NoError(t, err)
	require.Equal(t, "keep", string(b))

	// Other options than the prepared set's are refused by name.
	o := opts(dir2, RndWr)
	o.FileNum = 8
	w3, err := New(o)
	require.NoError(t, err)
	require.ErrorContains(t, w3.Init(context.Background()), "--file-num 8")
}

func TestOptionErrors(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Options)
		want string
	}{
		{func(o *Options) { o.TestMode = "rndwrite" }, "--file-test-mode \"rndwrite\""},
		{func(o *Options) { o.IOMode, o.AsyncBacklog = "async", 0 }, "--file-async-backlog 0: want 1..32768"},
		{func(o *Options) { o.IOMode = "aio" }, "want sync, async or mmap"},
		{func(o *Options) { o.ExtraFlags = []string{"directio"} }, "--file-extra-flags \"directio\""},
		{func(o *Options) { o.FsyncMode = "sync" }, "--file-fsync-mode"},
		{func(o *Options) { o.TotalSize = 1000 }, "smaller than --file-block-size"},
		{func(o *Options) { o.IOMode, o.ExtraFlags = "mmap", []string{"direct"} }, "does not apply"},
		{func(o *Options) { o.Device = "/dev/null" }, "--i-know-this-destroys-data"},
	} {
		o := opts(t.TempDir(), RndWr)
		tc.edit(&o)
		_, err := New(o)
		require.ErrorContains(t, err, tc.want)
	}
	w, err := New(opts(t.TempDir(), ""))
	require.NoError(t, err)
	require.ErrorContains(t, w.Init(context.Background()), "--file-test-mode is required")
}

// guardTree is a fixture sysfs and procfs for CheckDevice, and a block
// node of this machine with number 7:250 (a loop number no device uses).
func guardTree(t *testing.T) (Guard, string, string) {
	t.Helper()
	root := t.TempDir()
	node := filepath.Join(root, "dev-test")
	if err := unix.Mknod(node, unix.S_IFBLK|0o600, int(unix.Mkdev(7, 250))); err != nil {
		testenv.Missing(t, "mknod a block node (root with CAP_MKNOD): %v", err)
	}
	sys, proc := filepath.Join(root, "sys"), filepath.Join(root, "proc")
	dev := filepath.Join(sys, "devices", "virtual", "block", "loop250")
	for _, d := range []string{filepath.Join(dev, "holders"), filepath.Join(sys, "dev", "block"), filepath.Join(proc, "self")} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dev, "dev"), []byte("7:250\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dev, "size"), []byte("131072\n"), 0o644))
	require.NoError(t, os.Symlink(dev, filepath.Join(sys, "dev", "block", "7:250")))
	require.NoError(t, os.WriteFile(filepath.Join(proc, "self", "mountinfo"), []byte("22 1 254:0 / / rw - ext4 /dev/vda rw\n"), 0o644))
	return Guard{Sys: sys, Proc: proc}, node, dev
}

// TestDeviceGuard: a raw device is written only when asked and when
// nothing uses it; each refusal names why, before anything is opened.
func TestDeviceGuard(t *testing.T) {
	g, node, dev := guardTree(t)
	size, err := g.CheckDevice(node)
	require.NoError(t, err)
	require.Equal(t, int64(64<<20), size)

	o := opts("", RndWr)
	o.Device, o.DestroyData, o.TotalSize = node, true, 0
	w, err := newWithGuard(o, g)
	require.NoError(t, err)
	require.Equal(t, int64(64<<20), w.fileSize, "--file-total-size 0: the whole device")
	o.TotalSize = 1 << 20
	w, err = newWithGuard(o, g)
	require.NoError(t, err)
	require.Equal(t, int64(1<<20), w.fileSize, "or its first part")

	// Mounted (a partition of it, even).
	part := filepath.Join(dev, "loop250p1")
	require.NoError(t, os.MkdirAll(filepath.Join(part, "holders"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(part, "partition"), []byte("1\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(part, "dev"), []byte("259:77\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(g.Proc, "self", "mountinfo"), []byte("22 1 254:0 / / rw - ext4 /dev/vda rw\n40 22 259:77 / /data rw - xfs /dev/loop250p1 rw\n"), 0o644))
	_, err = g.CheckDevice(node)
	require.ErrorContains(t, err, "loop250p1 is mounted on /data: refused")
	require.NoError(t, os.WriteFile(filepath.Join(g.Proc, "self", "mountinfo"), nil, 0o644))

	// Held by md.
	require.NoError(t, os.Symlink("../../md0", filepath.Join(dev, "holders", "md0")))
	_, err = g.CheckDevice(node)
	require.ErrorContains(t, err, "held by md0")
	require.NoError(t, os.Remove(filepath.Join(dev, "holders", "md0")))

	// No mountinfo: refuse rather than guess.
	require.NoError(t, os.Remove(filepath.Join(g.Proc, "self", "mountinfo")))
	_, err = g.CheckDevice(node)
	require.ErrorContains(t, err, "cannot tell whether it is mounted")

	// Not a block device.
	_, err = g.CheckDevice(filepath.Join(t.TempDir()))
	require.ErrorContains(t, err, "is not a block device")
	_, err = DefaultGuard.CheckDevice("/dev/null")
	require.ErrorContains(t, err, "is not a block device")
}

// TestRawDeviceOnLoop: a real block device (a loop device over a 64 MiB
// file): prepare fills it once, a random-write run writes through
// O_DIRECT|O_EXCL, and the bytes are in the backing file.
func TestRawDeviceOnLoop(t *testing.T) {
	img := loopImage(t)
	loop := attachLoop(t, img)

	o := opts(t.TempDir(), RndWr)
	o.Device, o.DestroyData, o.ExtraFlags = loop, true, []string{"direct"}
	w, err := New(o)
	require.NoError(t, err)
	require.NoError(t, w.Prepare(context.Background(), workload.PrepareOptions{}))
	b, err := os.ReadFile(img)
	require.NoError(t, err)
	require.False(t, bytes.Equal(b[:4096], make([]byte, 4096)), "prepare wrote the device")
	res := run(t, o, 1000, 2)
	require.Zero(t, res.Errors)
	require.Equal(t, res.Writes*4096, res.WrittenBytes)
	var sum bytes.Buffer
	res.WriteSummary(&sum)
	t.Logf("rndwr on %s:\n%s", loop, sum.String())

	// While the device is open with O_EXCL (as a run holds it), a second
	// run's open is refused by the kernel.
	fd, err := unix.Open(loop, unix.O_RDONLY|unix.O_EXCL, 0)
	require.NoError(t, err)
	w2, err := New(o)
	require.NoError(t, err)
	require.ErrorContains(t, w2.Init(context.Background()), fmt.Sprintf("open %s", loop))
	unix.Close(fd)
}

// TestInterruptedPrepare: a prepare stopped half-way (SIGINT, kill -9)
// leaves a set that run refuses and that the next prepare completes; a
// different set over it is refused until cleanup.
func TestInterruptedPrepare(t *testing.T) {
	dir := t.TempDir()
	o := opts(dir, RndWr)
	o.TotalSize = 64 << 20
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
	require.ErrorContains(t, w.Init(context.Background()), "the last prepare did not finish")

	o2 := opts(dir, RndWr)
	o2.FileNum = 2
	w2, err := New(o2)
	require.NoError(t, err)
	require.ErrorContains(t, w2.Prepare(context.Background(), workload.PrepareOptions{}), "holds another prepared set")

	require.NoError(t, w.Prepare(context.Background(), workload.PrepareOptions{}))
	require.NoError(t, w.Init(context.Background()))
	require.NoError(t, w.closeLocked())
	require.NoError(t, w.Cleanup(context.Background()))
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, ents)
}
