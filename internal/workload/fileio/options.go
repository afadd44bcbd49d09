package fileio

import (
	"fmt"
	"slices"
	"strings"

	"github.com/walab/walab/internal/workload"
)

// Test modes, as sysbench 1.0.20 names them.
const (
	SeqWr   = "seqwr"   // sequential write
	SeqRewr = "seqrewr" // sequential rewrite
	SeqRd   = "seqrd"   // sequential read
	RndRd   = "rndrd"   // random read
	RndWr   = "rndwr"   // random write
	RndRW   = "rndrw"   // random read/write, --file-rw-ratio reads per write
)

// Modes lists the test modes.
var Modes = []string{SeqWr, SeqRewr, SeqRd, RndRd, RndWr, RndRW}

// Options are sysbench fileio's, plus the raw device mode.
type Options struct {
	FileNum        int
	BlockSize      int64
	TotalSize      int64 // 0 with Device: the whole device
	TestMode       string
	IOMode         string // sync, async or mmap
	AsyncBacklog   int
	ExtraFlags     []string // sync, dsync, direct
	FsyncFreq      int
	FsyncAll       bool
	FsyncEnd       bool
	FsyncMode      string // fsync or fdatasync
	MergedRequests int
	RWRatio        float64
	Dir            string
	Device         string
	DestroyData    bool // --i-know-this-destroys-data
}

// flags holds the command-line spellings before they are parsed.
type flags struct {
	o                    Options
	blockSize, totalSize string
	extraFlags           string
}

func define(fs *workload.FlagSet) workload.Factory {
	f := &flags{}
	fs.Int(&f.o.FileNum, "file-num", 128, "Number of files to create.").Range(1, 1<<20)
	fs.String(&f.blockSize, "file-block-size", "16384", "Block size of every I/O request (bytes; K, M, G suffixes).")
	fs.String(&f.totalSize, "file-total-size", "2G", "Total size of the files (K, M, G, T suffixes); with --device, the part of the device used (0: all of it).")
	fs.String(&f.o.TestMode, "file-test-mode", "", "Test mode: "+strings.Join(Modes, ", ")+".")
	fs.String(&f.o.IOMode, "file-io-mode", "sync", "I/O mode: sync, async (io_uring, --file-async-backlog requests in flight per thread) or mmap.")
	fs.Int(&f.o.AsyncBacklog, "file-async-backlog", 128, "Asynchronous operations per thread (async mode).").Min(1)
	fs.String(&f.extraFlags, "file-extra-flags", "", "Extra open flags, comma-separated: sync, dsync, direct.")
	fs.Int(&f.o.FsyncFreq, "file-fsync-freq", 100, "fsync() every file after this many writes of a thread (0: never; sysbench counts requests, and a read-only mode never fsyncs).").Min(0)
	fs.Bool(&f.o.FsyncAll, "file-fsync-all", false, "fsync() the file after every write.")
	fs.Bool(&f.o.FsyncEnd, "file-fsync-end", true, "fsync() every file at the end of the test.")
	fs.String(&f.o.FsyncMode, "file-fsync-mode", "fsync", "fsync or fdatasync.")
	fs.Int(&f.o.MergedRequests, "file-merged-requests", 0, "Merge at most this many sequential requests into one (0: none).").Min(0)
	fs.Float(&f.o.RWRatio, "file-rw-ratio", 1.5, "Reads per write in rndrw.").Min(0)
	fs.String(&f.o.Dir, "file-dir", ".", "Directory of the test files (walab; sysbench uses the current directory).")
	fs.String(&f.o.Device, "device", "", "Run on this raw block device instead of files (destroys its data; needs --i-know-this-destroys-data; refused when mounted, in use or held).")
	fs.Bool(&f.o.DestroyData, "i-know-this-destroys-data", false, "Allow --device to overwrite the device.")
	return workload.Factory{Local: func(workload.Target) (workload.Workload, error) {
		o := f.o
		var err error
		if o.BlockSize, err = workload.ParseSize(f.blockSize); err != nil {
			return nil, fmt.Errorf("--file-block-size: %w", err)
		}
		if o.TotalSize, err = workload.ParseSize(f.totalSize); err != nil {
			return nil, fmt.Errorf("--file-total-size: %w", err)
		}
		if f.extraFlags != "" {
			o.ExtraFlags = strings.Split(f.extraFlags, ",")
		}
		return New(o)
	}}
}

// maxAsyncBacklog bounds --file-async-backlog: io_uring's ring size limit
// (IORING_MAX_ENTRIES).
const maxAsyncBacklog = 32768

// Validate checks the options; errors name the flag.
func (o *Options) Validate() error {
	if o.BlockSize <= 0 {
		return fmt.Errorf("--file-block-size %d: must be positive", o.BlockSize)
	}
	if o.TestMode != "" && !slices.Contains(Modes, o.TestMode) {
		return fmt.Errorf("--file-test-mode %q: want one of %s", o.TestMode, strings.Join(Modes, ", "))
	}
	switch o.IOMode {
	case "sync", "mmap", "async":
	default:
		return fmt.Errorf("--file-io-mode %q: want sync, async or mmap", o.IOMode)
	}
	if o.IOMode == "async" && (o.AsyncBacklog < 1 || o.AsyncBacklog > maxAsyncBacklog) {
		return fmt.Errorf("--file-async-backlog %d: want 1..%d", o.AsyncBacklog, maxAsyncBacklog)
	}
	for _, fl := range o.ExtraFlags {
		if !slices.Contains([]string{"sync", "dsync", "direct"}, fl) {
			return fmt.Errorf("--file-extra-flags %q: want sync, dsync or direct", fl)
		}
	}
	if o.FsyncMode != "fsync" && o.FsyncMode != "fdatasync" {
		return fmt.Errorf("--file-fsync-mode %q: want fsync or fdatasync", o.FsyncMode)
	}
	if o.IOMode == "mmap" && slices.Contains(o.ExtraFlags, "direct") {
		return fmt.Errorf("--file-extra-flags direct does not apply to --file-io-mode mmap")
	}
	if o.Device != "" {
		if !o.DestroyData {
			return fmt.Errorf("--device %s overwrites the device: add --i-know-this-destroys-data if that is what you want", o.Device)
		}
		if o.IOMode == "mmap" {
			return fmt.Errorf("--device: use --file-io-mode sync")
		}
		return nil
	}
	if o.TotalSize <= 0 {
		return fmt.Errorf("--file-total-size %d: must be positive", o.TotalSize)
	}
	if o.FileSize() < o.BlockSize {
		return fmt.Errorf("--file-total-size %d over --file-num %d gives files smaller than --file-block-size %d", o.TotalSize, o.FileNum, o.BlockSize)
	}
	return nil
}

// FileSize is the size of each file: the total over the files, rounded
// down to whole blocks (sysbench rounds the same way).
func (o *Options) FileSize() int64 {
	n := o.TotalSize / int64(o.FileNum)
	return n - n%o.BlockSize
}
