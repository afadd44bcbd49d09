// Package nvmetrace: the io_size program, why it traces bios, and its tests (moved from docs/placement-trace.md).
//
// # The io_size program
//
// A second program of this package, on the block layer's
// `block:block_bio_queue` tracepoint, reads three fields of each bio (the
// block layer's unit of I/O, as a filesystem or a direct write submits it):
// `dev` (the device's dev_t), `nr_sector` (512-byte sectors) and `rwbs`. It
// finds the size's bucket by comparing it with each bound in turn (twelve
// compares, no loop) and adds one I/O and its bytes to a per-CPU hash map
// keyed by device, operation letter and bucket (at most 8,192 keys). The
// operation is rwbs's letter after a preflush `F`: `R` read, `W` write, `D`
// discard; anything else is `other`. A bio without data (a flush) is not
// counted. At scrape time the exporter sums the map over CPUs, makes the
// buckets cumulative, and names each device from `/sys/dev/block/MAJ:MIN`
// (a device sysfs no longer has keeps `MAJ:MIN`, so its counts are not
// dropped). Labels are bounded: the block devices that take I/O, times four
// operations.
//
// The kernel traces a bio once, at the device it was first submitted to,
// before the block layer merges or splits it for the driver: MySQL's I/O as
// it left the filesystem. An md array or a dm device has its own profile
// (the bios submitted to it), and its members have the bios the array sent
// them (md's stripe pieces, dm's clones). Under native NVMe multipath
// (Debian's default) the namespace's head, `nvme0n1`, has the bios.
//
// Why not the driver's requests (`block:block_rq_issue`): md and bio-based
// dm devices issue none, so an array would have no profile; and under native
// multipath the requests go to a hidden path disk (`nvme0c0n1`) whose device
// number sysfs does not show (`TestQEMUPlacementTrace` saw them as `259:0`
// with only `259:1`, the head, in `/sys/dev/block`), so they could not be
// named.
//
// The program is built the same way as the placement program (cilium/ebpf's
// `asm`, offsets from `events/block/block_bio_queue/format`; `rwbs` is 8
// bytes on older kernels, 10 on newer ones). It is attached through a perf
// event whose tracepoint id is read from the configured tracefs, so tracefs
// may be mounted anywhere.
//
// Tested: `TestIOSizeProgramPassesTheVerifier` loads the program for Linux
// 6.18's record layout (a format file from this machine's tracefs), for the
// 8-byte `rwbs` and for unaligned fields; `TestIOSizeTracerCountsDirectIO`
// attaches it on the machine's kernel and finds 32 direct 64 KiB writes and
// 32 direct 4 KiB reads in their buckets; `TestIOSizeTracerMountsTracefs`
// opens it on an empty directory (tracefs mounted, then unmounted);
// `TestIOSizeTracerUnprivileged` opens it as uid 65534 without a capability
// (mount refused: `tracefs_permission`, CAP_SYS_ADMIN named) and with the
// unit's CAP_SYS_ADMIN (mounted, but root's: CAP_DAC_READ_SEARCH named); `TestQEMUPlacementTrace` runs the
// exporter with it in a guest (Debian's 6.12) and finds dd's 4 MiB of direct
// writes at `nvme0n1`; `TestIOSizeHistogram` checks the exposition
// (cumulative buckets, sum, names) and runs `promtool check metrics` on it.
package nvmetrace
