// Package fileio is sysbench 1.0.20's fileio test as a loadgen workload: a
// device-level load without a database (seeds 002 and 004 measure drives
// with it before MySQL runs), on a set of files or on a raw block device.
// Each event is one read or write request of --file-block-size (or a merge
// of sequential ones), or one fsync; the runner counts them as reads,
// writes and others and reports sysbench fileio's lines.
//
// Sequential modes walk the whole set in order, shared by the threads, and
// wrap at its end; random modes pick a file and a block uniformly; rndrw
// makes a request a read with probability ratio / (1 + ratio). After every
// --file-fsync-freq writes of a thread every file is fsynced (one event
// each), as sysbench does; --file-fsync-all fsyncs the written file after
// each write. The 0.4 spellings --max-time, --max-requests and
// --num-threads are --time, --events and --threads.
//
// --file-io-mode=async runs each thread on an io_uring of its own
// (internal/uring; the event and fsync rules are on type async). When it
// was written (2-core VM, /dev/vda, 4 x 64 MiB, 16 KiB direct random
// reads, 3 s, one thread) sync mode read 4,300 requests/s and async mode
// with a backlog of 32 12,159/s.
package fileio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/safefile"
	"github.com/walab/walab/internal/workload"
)

func init() {
	workload.Register(workload.Spec{
		Name:   "fileio",
		Help:   "sysbench 1.0.20's fileio test: file or raw-device I/O without a database",
		Phases: []string{"prepare", "run", "check", "cleanup"},
		Report: workload.Report{IO: true},
		Define: define,
	})
}

// Request types, the transaction types of the runner's metrics.
const (
	TxRead  = "read"
	TxWrite = "write"
	TxFsync = "fsync"
)

// markerName is the file prepare writes beside the files it made; run,
// check and cleanup touch only file sets that have it, so loadgen never
// overwrites or removes files that are not its own.
const markerName = ".walab-fileio.json"

type marker struct {
	Files    int   `json:"files"`
	FileSize int64 `json:"file_size"`
	// Complete is set once every file is written and synced: a prepare
	// that was killed leaves the marker without it, so the next prepare
	// knows the files are loadgen's and writes them again, and run refuses
	// the half-written set.
	Complete bool `json:"complete"`
}

// Workload is one fileio test.
type Workload struct {
	o        Options
	paths    []string
	fileSize int64
	blocks   int64 // blocks per file

	mu    sync.Mutex
	fds   []int
	maps  [][]byte
	refs  int
	seq   atomic.Int64 // next sequential block over the whole set
	guard Guard
}

var (
	_ workload.Workload    = (*Workload)(nil)
	_ workload.Initializer = (*Workload)(nil)
	_ workload.Stages      = (*Workload)(nil)
	_ workload.Describer   = (*Workload)(nil)
)

// New checks the options (and, for a raw device, that it may be written).
func New(o Options) (*Workload, error) {
	return newWithGuard(o, DefaultGuard)
}

func newWithGuard(o Options, g Guard) (*Workload, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	w := &Workload{o: o, guard: g}
	if o.Device != "" {
		size, err := g.CheckDevice(o.Device)
		if err != nil {
			return nil, fmt.Errorf("--device: %w", err)
		}
		if o.TotalSize == 0 || o.TotalSize > size {
			o.TotalSize = size
		}
		o.FileNum = 1
		w.o = o
		w.paths = []string{o.Device}
		w.fileSize = o.TotalSize - o.TotalSize%o.BlockSize
	} else {
		for i := range o.FileNum {
			w.paths = append(w.paths, filepath.Join(o.Dir, fmt.Sprintf("test_file.%d", i)))
		}
		w.fileSize = o.FileSize()
	}
	if w.fileSize < o.BlockSize {
		return nil, fmt.Errorf("--device %s: smaller than one block", o.Device)
	}
	w.blocks = w.fileSize / o.BlockSize
	return w, nil
}

func (w *Workload) Name() string      { return "fileio" }
func (w *Workload) TxTypes() []string { return []string{TxRead, TxWrite, TxFsync} }

// Describe prints sysbench's option block before a run.
func (w *Workload) Describe(out io.Writer) {
	o := w.o
	flags := "(none)"
	if len(o.ExtraFlags) > 0 {
		flags = strings.Join(o.ExtraFlags, ",")
	}
	fmt.Fprintf(out, "Extra file open flags: %s\n", flags)
	if o.Device != "" {
		fmt.Fprintf(out, "raw device %s, %s used\n", o.Device, humanSize(w.fileSize))
	} else {
		fmt.Fprintf(out, "%d files, %s each\n%s total file size\n", len(w.paths), humanSize(w.fileSize), humanSize(w.fileSize*int64(len(w.paths))))
	}
	fmt.Fprintf(out, "Block size %s\n", humanSize(o.BlockSize))
	if o.MergedRequests > 0 {
		fmt.Fprintf(out, "Merging requests up to %s for sequential IO.\n", humanSize(int64(o.MergedRequests)*o.BlockSize))
	}
	if o.TestMode == RndRd || o.TestMode == RndWr || o.TestMode == RndRW {
		// sysbench prints the ratio for every random mode, used or not.
		fmt.Fprintf(out, "Read/Write ratio for combined random IO test: %.2f\n", o.RWRatio)
	}
	switch {
	case o.FsyncAll: // sysbench then prints neither line below
		fmt.Fprintf(out, "Calling fsync() after each write operation.\n")
	default:
		if o.FsyncFreq > 0 {
			fmt.Fprintf(out, "Periodic FSYNC enabled, calling fsync() each %d requests.\n", o.FsyncFreq)
		}
		if o.FsyncEnd {
			fmt.Fprintf(out, "Calling fsync() at the end of test, Enabled.\n")
		}
	}
	if o.IOMode == "mmap" {
		fmt.Fprintf(out, "Using mmap I/O mode\n")
	} else {
		fmt.Fprintf(out, "Using %s I/O mode\n", map[bool]string{true: "asynchronous", false: "synchronous"}[o.IOMode == "async"])
	}
	fmt.Fprintf(out, "Doing %s test\n", map[string]string{
		SeqWr: "sequential write (creation)", SeqRewr: "sequential rewrite", SeqRd: "sequential read",
		RndRd: "random read", RndWr: "random write", RndRW: "random r/w",
	}[o.TestMode])
}

func humanSize(n int64) string {
	for _, u := range []struct {
		s string
		b int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.b && n%u.b == 0 {
			return fmt.Sprintf("%d%s", n/u.b, u.s)
		}
	}
	return fmt.Sprintf("%db", n)
}

// Prepare writes every byte of the file set (creating the files) or of the
// raw device once, sequentially: the first step of preconditioning.
func (w *Workload) Prepare(ctx context.Context, opts workload.PrepareOptions) error {
	mp := filepath.Join(w.o.Dir, markerName)
	if w.o.Device != "" {
		// A device has no folder of its own: its marker sits in the
		// host's DeviceStateDir, so that a run from any directory sees a
		// prepare that did not finish.
		mp = w.deviceMarker()
		b, _ := json.Marshal(marker{Files: 1, FileSize: w.fileSize})
		if err := os.MkdirAll(DeviceStateDir, 0o700); err != nil {
			return fmt.Errorf("fileio prepare: %w", err)
		}
		if err := safefile.WriteAtomic(mp, b, nil); err != nil {
			return fmt.Errorf("fileio prepare: %w", err)
		}
	} else {
		if err := w.claimDir(); err != nil {
			return err
		}
		if err := w.checkFreeSpace(); err != nil {
			return err
		}
		if b, err := os.ReadFile(mp); err == nil {
			var m marker
			if json.Unmarshal(b, &m) == nil && (m.Files != len(w.paths) || m.FileSize != w.fileSize) {
				return fmt.Errorf("--file-dir %s holds another prepared set (%d files of %d bytes): run loadgen fileio cleanup with its options first", w.o.Dir, m.Files, m.FileSize)
			}
		}
		// Claim the set before writing a byte of it.
		b, _ := json.Marshal(marker{Files: len(w.paths), FileSize: w.fileSize})
		if err := safefile.WriteAtomic(mp, b, nil); err != nil {
			return err
		}
	}
	buf, err := alignedBuffer(max(w.o.BlockSize, 1<<20))
	if err != nil {
		return err
	}
	defer unix.Munmap(buf)
	fillRandom(buf, rand.New(rand.NewPCG(uint64(w.fileSize), uint64(len(w.paths)))))
	total := w.fileSize * int64(len(w.paths))
	var done int64
	for _, p := range w.paths {
		flags := unix.O_WRONLY | unix.O_CLOEXEC
		if w.o.Device != "" {
			flags |= unix.O_EXCL
		} else {
			flags |= unix.O_CREAT | unix.O_NOFOLLOW
		}
		fd, err := unix.Open(p, flags, 0o644)
		if err != nil {
			return fmt.Errorf("fileio prepare: %s: %w", p, err)
		}
		for off := int64(0); off < w.fileSize; {
			if err := ctx.Err(); err != nil {
				unix.Close(fd)
				return err
			}
			n := min(int64(len(buf)), w.fileSize-off)
			if _, err := unix.Pwrite(fd, buf[:n], off); err != nil {
				unix.Close(fd)
				return fmt.Errorf("fileio prepare: %s at %d: %w", p, off, err)
			}
			off += n
			done += n
			if opts.Progress != nil {
				opts.Progress(workload.ProgressEvent{Rows: done, TotalRows: total, Unit: "bytes"})
			}
		}
		err = unix.Fsync(fd)
		if cerr := unix.Close(fd); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("fileio prepare: %s: %w", p, err)
		}
	}
	b, _ := json.Marshal(marker{Files: len(w.paths), FileSize: w.fileSize, Complete: true})
	return safefile.WriteAtomic(mp, b, nil)
}

// DeviceStateDir holds the markers of raw-device prepares: the host's,
// not a --file-dir's, so that a run from any directory sees a prepare
// that did not finish.
var DeviceStateDir = "/var/lib/walab/fileio"

// deviceMarker is the marker of a raw device's prepare, in DeviceStateDir,
// named by the device's number.
func (w *Workload) deviceMarker() string {
	var st unix.Stat_t
	_ = unix.Stat(w.o.Device, &st) // CheckDevice stat'ed it
	return filepath.Join(DeviceStateDir, fmt.Sprintf("device-%d-%d.json", unix.Major(st.Rdev), unix.Minor(st.Rdev)))
}

// devicePrepared refuses a run on a device whose last prepare on this
// host did not finish. No marker: prepared by another host or before
// markers, or never; the run goes on.
func (w *Workload) devicePrepared() error {
	b, err := os.ReadFile(w.deviceMarker())
	if err != nil {
		return nil
	}
	var m marker
	if json.Unmarshal(b, &m) == nil && !m.Complete {
		return fmt.Errorf("--device %s: the last prepare did not finish (killed?; %s): run loadgen fileio prepare again", w.o.Device, w.deviceMarker())
	}
	return nil
}

// checkFreeSpace refuses a file set the filesystem of --file-dir cannot
// hold (counting what the files already have), before a byte is written.
func (w *Workload) checkFreeSpace() error {
	var need int64
	for _, p := range w.paths {
		have := int64(0)
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			have = min(fi.Size(), w.fileSize)
		}
		need += w.fileSize - have
	}
	var fs unix.Statfs_t
	if err := unix.Statfs(w.o.Dir, &fs); err != nil {
		return fmt.Errorf("--file-dir %s: %w", w.o.Dir, err)
	}
	free := int64(fs.Bavail) * fs.Bsize
	if need > free {
		return fmt.Errorf("--file-dir %s: the file set needs %s more, the filesystem has %s free: lower --file-total-size", w.o.Dir, humanSize(need), humanSize(free))
	}
	return nil
}

// claimDir makes sure the directory holds no test files but loadgen's:
// test_file.* without the marker are someone else's (sysbench's, or a
// user's), and prepare refuses to overwrite them.
func (w *Workload) claimDir() error {
	if _, err := os.Stat(filepath.Join(w.o.Dir, markerName)); err == nil {
		return nil
	}
	ents, err := os.ReadDir(w.o.Dir)
	if err != nil {
		return fmt.Errorf("--file-dir %s: %w", w.o.Dir, err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "test_file.") {
			return fmt.Errorf("--file-dir %s: %s exists and loadgen did not make it (no %s): remove it or choose another --file-dir", w.o.Dir, e.Name(), markerName)
		}
	}
	return nil
}

// prepared checks that the file set is loadgen's and of the size asked for.
func (w *Workload) prepared() error {
	b, err := os.ReadFile(filepath.Join(w.o.Dir, markerName))
	if err != nil {
		return fmt.Errorf("--file-dir %s: no file set prepared by loadgen (run loadgen fileio prepare with the same options): %w", w.o.Dir, err)
	}
	var m marker
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("--file-dir %s: %s: %w", w.o.Dir, markerName, err)
	}
	if !m.Complete {
		return fmt.Errorf("--file-dir %s: the last prepare did not finish (killed?): run loadgen fileio prepare again", w.o.Dir)
	}
	if m.Files != len(w.paths) || m.FileSize != w.fileSize {
		return fmt.Errorf("--file-dir %s holds %d files of %d bytes; --file-num %d and --file-total-size give %d of %d: prepare again or use the same options",
			w.o.Dir, m.Files, m.FileSize, len(w.paths), len(w.paths), w.fileSize)
	}
	for _, p := range w.paths {
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() || fi.Size() < w.fileSize {
			return fmt.Errorf("%s: not a regular file of %d bytes", p, w.fileSize)
		}
	}
	return nil
}

// Init opens the files (or the device) for the run.
func (w *Workload) Init(context.Context) error {
	if w.o.TestMode == "" {
		return errors.New("--file-test-mode is required for run (" + strings.Join(Modes, ", ") + ")")
	}
	check := w.prepared
	if w.o.Device != "" {
		check = w.devicePrepared
	}
	if err := check(); err != nil {
		return err
	}
	flags := unix.O_RDWR | unix.O_CLOEXEC | unix.O_NOFOLLOW
	for _, fl := range w.o.ExtraFlags {
		flags |= map[string]int{"sync": unix.O_SYNC, "dsync": unix.O_DSYNC, "direct": unix.O_DIRECT}[fl]
	}
	if w.o.Device != "" {
		flags = flags&^unix.O_NOFOLLOW | unix.O_EXCL
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range w.paths {
		fd, err := unix.Open(p, flags, 0)
		if err != nil {
			w.closeLocked()
			return fmt.Errorf("fileio: open %s: %w", p, err)
		}
		w.fds = append(w.fds, fd)
		if w.o.IOMode == "mmap" {
			m, err := unix.Mmap(fd, 0, int(w.fileSize), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
			if err != nil {
				w.closeLocked()
				return fmt.Errorf("fileio: mmap %s: %w", p, err)
			}
			w.maps = append(w.maps, m)
		}
	}
	return nil
}

// closeLocked syncs (with --file-fsync-end) and closes everything Init opened.
func (w *Workload) closeLocked() error {
	var errs []error
	for i, fd := range w.fds {
		if w.o.FsyncEnd {
			errs = append(errs, w.syncFile(i))
		}
		if i < len(w.maps) {
			errs = append(errs, unix.Munmap(w.maps[i]))
		}
		errs = append(errs, unix.Close(fd))
	}
	w.fds, w.maps = nil, nil
	return errors.Join(errs...)
}

func (w *Workload) syncFile(i int) error {
	if i < len(w.maps) {
		return unix.Msync(w.maps[i], unix.MS_SYNC)
	}
	if w.o.FsyncMode == "fdatasync" {
		return unix.Fdatasync(w.fds[i])
	}
	return unix.Fsync(w.fds[i])
}

// Check reports whether the file set is loadgen's and complete.
func (w *Workload) Check(context.Context) ([]workload.CheckResult, error) {
	if w.o.Device != "" {
		return []workload.CheckResult{{Name: "device", Passed: true, Detail: fmt.Sprintf("%s may be written (%s)", w.o.Device, humanSize(w.fileSize))}}, nil
	}
	err := w.prepared()
	res := workload.CheckResult{Name: "file set", Passed: err == nil, Detail: fmt.Sprintf("%d files of %d bytes in %s", len(w.paths), w.fileSize, w.o.Dir)}
	if err != nil {
		res.Detail = err.Error()
	}
	return []workload.CheckResult{res}, nil
}

// Cleanup removes the files prepare made, and nothing else.
func (w *Workload) Cleanup(context.Context) error {
	if w.o.Device != "" {
		return nil
	}
	mp := filepath.Join(w.o.Dir, markerName)
	b, err := os.ReadFile(mp)
	if errors.Is(err, os.ErrNotExist) {
		return w.claimDir() // nothing of ours; an error if someone else's files are there
	}
	if err != nil {
		return err
	}
	var m marker
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("%s: %w", mp, err)
	}
	for i := range m.Files {
		p := filepath.Join(w.o.Dir, fmt.Sprintf("test_file.%d", i))
		if fi, err := os.Lstat(p); err == nil && !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file: left alone", p)
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return os.Remove(mp)
}

// NewTerminal returns one client thread.
func (w *Workload) NewTerminal(_ int, rng *rand.Rand) workload.Terminal {
	w.mu.Lock()
	w.refs++
	w.mu.Unlock()
	merge := int64(max(w.o.MergedRequests, 1))
	if w.o.TestMode != SeqWr && w.o.TestMode != SeqRewr && w.o.TestMode != SeqRd {
		merge = 1
	}
	slots := 1
	if w.o.IOMode == "async" {
		slots = w.o.AsyncBacklog
	}
	buf, err := alignedBuffer(w.o.BlockSize * merge * int64(slots))
	t := &terminal{w: w, rng: rng, buf: buf, bufErr: err, merge: merge}
	if err == nil {
		fillRandom(buf, rng)
	}
	if err == nil && w.o.IOMode == "async" {
		t.async, t.bufErr = newAsync(slots, w.o.BlockSize*merge)
	}
	return t
}

// terminal is one thread's request stream.
type terminal struct {
	w       *Workload
	rng     *rand.Rand
	buf     []byte
	bufErr  error
	merge   int64
	writes  int
	pending []int // files to fsync before the next request
	closed  bool
	async   *async // --file-io-mode=async
}

func (t *terminal) Next() string {
	if len(t.pending) > 0 {
		return TxFsync
	}
	switch t.w.o.TestMode {
	case SeqRd, RndRd:
		return TxRead
	case RndRW:
		r := t.w.o.RWRatio
		if t.rng.Float64() < r/(1+r) {
			return TxRead
		}
	}
	return TxWrite
}

func (t *terminal) Run(ctx context.Context, typ string) (workload.Result, error) {
	if t.bufErr != nil {
		return workload.Result{}, t.bufErr
	}
	w := t.w
	if t.async != nil {
		return t.runAsync(typ)
	}
	if typ == TxFsync {
		f := t.pending[0]
		t.pending = t.pending[1:]
		if err := w.syncFile(f); err != nil {
			return workload.Result{}, fmt.Errorf("%s %s: %w", w.o.FsyncMode, w.paths[f], err)
		}
		return workload.Result{Other: 1}, nil
	}
	file, off, n := t.place()
	data := t.buf[:n]
	var err error
	if typ == TxRead {
		if w.maps != nil {
			copy(data, w.maps[file][off:off+n])
		} else {
			_, err = unix.Pread(w.fds[file], data, off)
		}
		if err != nil {
			return workload.Result{}, fmt.Errorf("read %s at %d: %w", w.paths[file], off, err)
		}
		return workload.Result{Reads: 1, ReadBytes: n}, nil
	}
	if w.maps != nil {
		copy(w.maps[file][off:off+n], data)
	} else {
		_, err = unix.Pwrite(w.fds[file], data, off)
	}
	if err != nil {
		return workload.Result{}, fmt.Errorf("write %s at %d: %w", w.paths[file], off, err)
	}
	t.countWrite(file)
	return workload.Result{Writes: 1, WrittenBytes: n}, nil
}

// countWrite queues the fsyncs a write calls for (--file-fsync-all,
// --file-fsync-freq).
func (t *terminal) countWrite(file int) {
	w := t.w
	t.writes++
	if w.o.FsyncAll {
		t.pending = append(t.pending, file)
	} else if w.o.FsyncFreq > 0 && t.writes%w.o.FsyncFreq == 0 {
		for i := range w.paths {
			t.pending = append(t.pending, i)
		}
	}
}

// place picks a request: the next blocks of the set for sequential modes
// (shared by all threads, as in sysbench, and wrapping at the end), a
// uniformly random block of a random file otherwise.
func (t *terminal) place() (file int, off, n int64) {
	w, bs := t.w, t.w.o.BlockSize
	if w.o.TestMode == SeqWr || w.o.TestMode == SeqRewr || w.o.TestMode == SeqRd {
		total := w.blocks * int64(len(w.paths))
		blk := (w.seq.Add(t.merge) - t.merge) % total
		file, b := int(blk/w.blocks), blk%w.blocks
		k := min(t.merge, w.blocks-b)
		return file, b * bs, k * bs
	}
	return t.rng.IntN(len(w.paths)), t.rng.Int64N(w.blocks) * bs, bs
}

func (t *terminal) KeyingTime(string) float64 { return 0 }
func (t *terminal) ThinkTime(string) float64  { return 0 }

// Close releases the thread's buffer; the last thread to close syncs
// (--file-fsync-end) and closes the files.
func (t *terminal) Close() error {
	if t.closed {
		return nil
	}
	t.closed = true
	var aerr error
	if t.async != nil {
		aerr = t.async.ring.Close() // waits for the requests in flight: they use buf
	}
	if t.buf != nil {
		_ = unix.Munmap(t.buf)
	}
	w := t.w
	w.mu.Lock()
	defer w.mu.Unlock()
	w.refs--
	if w.refs == 0 {
		return errors.Join(aerr, w.closeLocked())
	}
	return aerr
}

// alignedBuffer is page-aligned memory, as O_DIRECT needs.
func alignedBuffer(n int64) ([]byte, error) {
	b, err := unix.Mmap(-1, 0, int(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("fileio: buffer of %d bytes: %w", n, err)
	}
	return b, nil
}

// fillRandom makes the data incompressible, so a drive that compresses
// writes no less than the host sent.
func fillRandom(b []byte, rng *rand.Rand) {
	for i := 0; i+8 <= len(b); i += 8 {
		v := rng.Uint64()
		for j := range 8 {
			b[i+j] = byte(v >> (8 * j))
		}
	}
}
