package simfs

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/simfs/fileclass"
	"github.com/walab/walab/internal/testenv"
)

// BenchmarkCallerIdentity is what acting as the caller costs, side by
// side with the loopback acting as root (as before): nobody (this
// goroutine's thread with fsuid and fsgid 65534) on an allow_other mount,
// "meta" creating, writing 4 KiB to, stat-ing, renaming and unlinking a
// file (every step resolves a path), "write" writing 16 KiB to an open
// file (no path: unchanged).
func BenchmarkCallerIdentity(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("needs root")
	}
	for _, work := range []string{"meta", "write"} {
		for _, mode := range []string{"as-root", "as-caller"} {
			b.Run(work+"/"+mode, func(b *testing.B) {
				actAsRoot = mode == "as-root"
				defer func() { actAsRoot = false }()
				benchAsNobody(b, work)
			})
		}
	}
}

func benchAsNobody(b *testing.B, work string) {
	testenv.RequireFUSE(b)
	base, err := os.MkdirTemp("/tmp", "simfsbench") // $TMPDIR may be private
	if err != nil || os.Chmod(base, 0o755) != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(base)
	back, mnt := filepath.Join(base, "backing"), filepath.Join(base, "mnt")
	for _, d := range []string{back, mnt} {
		if err := os.Mkdir(d, 0o700); err != nil {
			b.Fatal(err)
		}
	}
	f, err := Mount(Options{Backing: back, Mountpoint: mnt, Drive: &recorder{written: map[uint32]string{}},
		LogicalPages: 1 << 18, PageSize: 4096, AllowOther: true, NoDiscard: true})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Unmount()
	dir := filepath.Join(mnt, "d")
	if err := os.Mkdir(dir, 0o755); err != nil || os.Chown(dir, nobody, nobody) != nil || os.Chmod(mnt, 0o755) != nil {
		b.Fatal(err)
	}
	runtime.LockOSThread() // the FUSE requests carry this thread's fsuid
	defer runtime.UnlockOSThread()
	_, _ = unix.SetfsgidRetGid(nobody)
	_, _ = unix.SetfsuidRetUid(nobody)
	defer func() { _, _ = unix.SetfsuidRetUid(0); _, _ = unix.SetfsgidRetGid(0) }()
	if work == "meta" {
		benchMeta(b, dir)
	} else {
		benchWrite(b, dir)
	}
}

func benchMeta(b *testing.B, dir string) {
	page := make([]byte, 4096)
	var st unix.Stat_t
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := filepath.Join(dir, "f"+strconv.Itoa(i))
		fd, err := unix.Open(p, unix.O_CREAT|unix.O_WRONLY|unix.O_EXCL, 0o644)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := unix.Pwrite(fd, page, 0); err != nil {
			b.Fatal(err)
		}
		unix.Close(fd)
		if err := unix.Stat(p, &st); err != nil {
			b.Fatal(err)
		}
		if err := unix.Rename(p, p+"r"); err != nil {
			b.Fatal(err)
		}
		if err := unix.Unlink(p + "r"); err != nil {
			b.Fatal(err)
		}
	}
}

func benchWrite(b *testing.B, dir string) {
	buf := make([]byte, 16<<10)
	fd, err := unix.Open(filepath.Join(dir, "w"), unix.O_CREAT|unix.O_WRONLY, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Close(fd)
	b.SetBytes(int64(len(buf)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := unix.Pwrite(fd, buf, int64(i%4096)*int64(len(buf))); err != nil {
			b.Fatal(err)
		}
	}
}

// nullDrive takes the filesystem's writes and TRIMs and does nothing:
// BenchmarkWritePath measures the filesystem, not a drive model.
type nullDrive struct{}

func (nullDrive) HostWrite(string, fileclass.Class, uint32, uint32) error { return nil }
func (nullDrive) HostTrim(uint32, uint32) error                           { return nil }
func (nullDrive) FeedFailed(error)                                        {}

// BenchmarkWritePath is the write path bench/simfs-cpu.sh measures from
// outside, for a CPU profile (go test -cpuprofile): O_DIRECT writes of
// 16 KiB each followed by fdatasync (InnoDB's page and redo writes), and
// of 1 MiB (a sequential copy), to an InnoDB data file on the mount. The
// profile holds the writer's system calls beside the server's work.
func BenchmarkWritePath(b *testing.B) {
	testenv.RequireFUSE(b)
	for _, bs := range []int{16 << 10, 1 << 20} {
		b.Run(strconv.Itoa(bs>>10)+"KiB", func(b *testing.B) {
			dir := b.TempDir()
			back, mnt := filepath.Join(dir, "backing"), filepath.Join(dir, "mnt")
			for _, d := range []string{back, mnt} {
				if err := os.Mkdir(d, 0o700); err != nil {
					b.Fatal(err)
				}
			}
			f, err := Mount(Options{Backing: back, Mountpoint: mnt, Drive: nullDrive{}, LogicalPages: 1 << 18, PageSize: 4096})
			if err != nil {
				b.Fatal(err)
			}
			defer f.Unmount()
			benchDirect(b, filepath.Join(mnt, "t1.ibd"), bs)
		})
	}
}

// benchDirect writes bs bytes at a time to p with O_DIRECT, cycling over
// 64 MiB, and fdatasyncs after each write below 1 MiB.
func benchDirect(b *testing.B, p string, bs int) {
	fd, err := unix.Open(p, unix.O_CREAT|unix.O_WRONLY|unix.O_DIRECT, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Close(fd)
	buf, err := unix.Mmap(-1, 0, bs, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE) // page-aligned
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Munmap(buf)
	slots := (64 << 20) / bs
	b.SetBytes(int64(bs))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := unix.Pwrite(fd, buf, int64(i%slots*bs)); err != nil {
			b.Fatal(err)
		}
		if bs < 1<<20 {
			if err := unix.Fdatasync(fd); err != nil {
				b.Fatal(err)
			}
		}
	}
}
