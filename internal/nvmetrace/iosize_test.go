package nvmetrace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/testenv"
)

func ioSizeMap(t *testing.T) *ebpf.Map {
	m, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.PerCPUHash, KeySize: ioKeySize, ValueSize: ioValueSize, MaxEntries: IOSizeMaxKeys})
	if err != nil {
		if errors.Is(err, os.ErrPermission) || errors.Is(err, ebpf.ErrNotSupported) {
			testenv.Missing(t, "BPF maps on this machine: %v", err)
		}
		require.NoError(t, err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// TestIOSizeProgramPassesTheVerifier loads the I/O-size program built for
// Linux 6.18's block_bio_queue record (read from this machine's tracefs),
// for the 8-byte rwbs of older kernels and for unaligned fields: the
// verifier accepts every record access and map call.
func TestIOSizeProgramPassesTheVerifier(t *testing.T) {
	b, err := os.ReadFile("testdata/block_bio_queue-6.18.format")
	require.NoError(t, err)
	fields, err := ParseFormat(string(b))
	require.NoError(t, err)
	l, err := BlockLayoutOf(fields)
	require.NoError(t, err)
	require.Equal(t, BlockLayout{Dev: Field{Offset: 8, Size: 4}, Sectors: Field{Offset: 24, Size: 4}, RWBS: Field{Offset: 28, Size: 10}}, l)
	m := ioSizeMap(t)
	old := BlockLayout{Dev: Field{Offset: 8, Size: 4}, Sectors: Field{Offset: 24, Size: 4}, RWBS: Field{Offset: 28, Size: 8}}
	odd := BlockLayout{Dev: Field{Offset: 9, Size: 4}, Sectors: Field{Offset: 25, Size: 4}, RWBS: Field{Offset: 33, Size: 8}}
	for _, l := range []BlockLayout{l, old, odd} {
		prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{Type: ebpf.TracePoint, License: "GPL", Instructions: IOSizeProgram(l, m.FD())})
		require.NoError(t, err, "%+v", l)
		require.NoError(t, prog.Close())
	}
	require.Len(t, IOSizeBounds, 12)
	require.Equal(t, uint32(512), IOSizeBounds[0])
	require.Equal(t, uint32(1<<20), IOSizeBounds[11])
}

func TestBlockLayoutOf(t *testing.T) {
	_, err := BlockLayoutOf(map[string]Field{"dev": {Offset: 8, Size: 4}, "nr_sector": {Offset: 24, Size: 4}})
	require.ErrorContains(t, err, "no field rwbs")
	_, err = BlockLayoutOf(map[string]Field{"dev": {Offset: 8, Size: 8}, "nr_sector": {Offset: 24, Size: 4}, "rwbs": {Offset: 28, Size: 8}})
	require.ErrorContains(t, err, "field dev is 8 bytes, want 4 to 4")
	k := IOSizeKey{Dev: 254<<20 | 3}
	require.Equal(t, [2]uint32{254, 3}, [2]uint32{k.Major(), k.Minor()})
}

// TestIOSizeTracerCountsDirectIO attaches the tracer to this machine's
// block_bio_queue and does direct I/O on the device under the test's temp
// directory: 32 writes of 64 KiB and 32 reads of 4 KiB must be counted in
// their buckets (others' I/O on the same device may add to them). Needs
// root; tracefs is mounted on a temporary directory when the system has
// none mounted.
func TestIOSizeTracerCountsDirectIO(t *testing.T) {
	tr := openIOSize(t)
	defer tr.Close()
	dir := t.TempDir()
	disk := diskOf(t, dir)
	const n = 32
	directIO(t, filepath.Join(dir, "f"), n)
	counts, err := tr.Counts()
	require.NoError(t, err)
	got := map[string]uint64{}
	for _, c := range counts {
		if c.Dev == disk {
			got[fmt.Sprintf("%c/%d", c.Op, IOSizeBounds[min(int(c.Bucket), len(IOSizeBounds)-1)])] += c.Bios
		}
	}
	t.Logf("bios on device %d:%d by op/bucket: %v", disk>>20, disk&(1<<20-1), got)
	require.GreaterOrEqual(t, got["W/65536"], uint64(n), "64 KiB direct writes")
	require.GreaterOrEqual(t, got["R/4096"], uint64(n), "4 KiB direct reads")
}

// openIOSize attaches the I/O-size tracer to this machine's kernel, with
// an empty directory for tracefs: the tracer mounts tracefs there for its
// opening and unmounts it.
func openIOSize(t testing.TB) *IOSizeTracer {
	tr, err := OpenIOSize(t.TempDir())
	if err != nil {
		testenv.Missing(t, "the I/O-size tracer on this machine: %v", err)
	}
	return tr
}

// TestIOSizeTracerMountsTracefs: with tracefs not mounted at its
// directory (an empty one), the tracer mounts it, reads the event's format
// and id, attaches, and unmounts it, leaving the directory as it was; the
// tracer counts. Before, it said no_tracefs.
func TestIOSizeTracerMountsTracefs(t *testing.T) {
	if os.Geteuid() != 0 {
		testenv.Missing(t, "root, to mount tracefs")
	}
	dir := t.TempDir()
	tr, err := OpenIOSize(dir)
	require.NoError(t, err)
	defer tr.Close()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, ents, "tracefs unmounted after the attach")
	directIO(t, filepath.Join(t.TempDir(), "f"), 4)
	counts, err := tr.Counts()
	require.NoError(t, err)
	require.NotEmpty(t, counts)
}

// TestIOSizeTracerUnprivileged runs the opening as uid 65534: with no
// capability, mounting tracefs is refused; with the packaged unit's
// CAP_SYS_ADMIN it mounts, but tracefs is root's (mode 0700) and the
// event formats cannot be read. Either way the reason is
// tracefs_permission and the error names what is missing; nothing stays
// mounted.
func TestIOSizeTracerUnprivileged(t *testing.T) {
	if caps := testenv.Rerun(t); caps != "" {
		dir := os.Getenv("WALAB_TRACEFS_DIR")
		_, err := OpenIOSize(dir)
		var te *Error
		require.ErrorAs(t, err, &te)
		require.Equal(t, ReasonTracefsPermission, te.Reason, "%v", err)
		t.Logf("caps %s: %v", caps, err)
		want := map[string]string{"none": "needs CAP_SYS_ADMIN", "sys_admin": "need root or CAP_DAC_READ_SEARCH"}[caps]
		require.ErrorContains(t, err, want)
		ents, err := os.ReadDir(dir)
		require.NoError(t, err)
		require.Empty(t, ents, "nothing stays mounted")
		return
	}
	for _, caps := range []string{"none", "sys_admin"} {
		dir := t.TempDir()
		require.NoError(t, os.Chmod(dir, 0o755))
		require.NoError(t, os.Chmod(filepath.Dir(dir), 0o755))
		set := "-all"
		if caps != "none" {
			set += ",+" + caps
		}
		t.Setenv("WALAB_TRACEFS_DIR", dir)
		out := testenv.RerunAs(t, caps, "--reuid=65534", "--regid=65534", "--clear-groups",
			"--inh-caps="+set, "--ambient-caps="+set, "--bounding-set="+set)
		t.Log(out)
	}
}

// BenchmarkIOSizeTracer is the program's own cost per bio: direct 4 KiB
// reads of one file with the tracer attached and the kernel's BPF run-time
// statistics on; bpf-ns/run is the program's mean time per run (every bio
// the machine submitted while it ran, others' included).
func BenchmarkIOSizeTracer(b *testing.B) {
	tr := openIOSize(b)
	defer tr.Close()
	path := filepath.Join(b.TempDir(), "f")
	directIO(b, path, 16)
	stats, err := EnableRunStats()
	if err != nil {
		testenv.Missing(b, "BPF statistics: %v", err)
	}
	defer stats.Close()
	buf, err := unix.Mmap(-1, 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	require.NoError(b, err)
	defer unix.Munmap(buf)
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECT, 0)
	require.NoError(b, err)
	defer unix.Close(fd)
	before, err := tr.RunStats()
	require.NoError(b, err)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, err := unix.Pread(fd, buf, int64(i%16)*64<<10)
		require.NoError(b, err)
	}
	b.StopTimer()
	after, err := tr.RunStats()
	require.NoError(b, err)
	runs := after.Runs - before.Runs
	require.GreaterOrEqual(b, runs, uint64(b.N), "every read ran the program")
	b.ReportMetric(float64((after.Runtime-before.Runtime).Nanoseconds())/float64(runs), "bpf-ns/run")
	b.ReportMetric(float64(runs)/float64(b.N), "runs/op")
}

// diskOf is the kernel dev_t of the device holding dir's filesystem (its
// bios are submitted there: a partition's to the partition).
func diskOf(t testing.TB, dir string) uint32 {
	var st unix.Stat_t
	require.NoError(t, unix.Stat(dir, &st))
	maj, mnr := unix.Major(st.Dev), unix.Minor(st.Dev)
	if _, err := os.Stat(fmt.Sprintf("/sys/dev/block/%d:%d", maj, mnr)); err != nil {
		testenv.Missing(t, "a block device under %s (%v)", dir, err)
	}
	return maj<<20 | mnr
}

// directIO writes n blocks of 64 KiB to path with O_DIRECT and reads the
// first 4 KiB of each back the same way.
func directIO(t testing.TB, path string, n int) {
	buf, err := unix.Mmap(-1, 0, 64<<10, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	require.NoError(t, err)
	defer unix.Munmap(buf)
	for i := range buf {
		buf[i] = byte(i)
	}
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_DIRECT, 0o600)
	if err != nil {
		testenv.Missing(t, "O_DIRECT on %s: %v", path, err)
	}
	defer unix.Close(fd)
	require.NoError(t, unix.Fallocate(fd, 0, 0, int64(n)*64<<10))
	require.NoError(t, unix.Fsync(fd))
	for i := 0; i < n; i++ {
		w, err := unix.Pwrite(fd, buf, int64(i)*64<<10)
		require.NoError(t, err)
		require.Equal(t, len(buf), w)
	}
	require.NoError(t, unix.Fdatasync(fd))
	for i := 0; i < n; i++ {
		r, err := unix.Pread(fd, buf[:4096], int64(i)*64<<10)
		require.NoError(t, err)
		require.Equal(t, 4096, r)
	}
}
