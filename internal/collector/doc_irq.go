// Package collector: what the irq collector reads and how it parses, and why walab parses diskstats itself (moved from docs/collectors-host.md).
//
// # irq and blockdev: what is read and parsed
//
// Each scrape reads the following:
//
//   - `<procfs>/interrupts`. Lines of interest are kept: NVMe queues,
//     configured NIC queues, and lines matching `match`. The `cpu` label is the
//     CPU id from the header, not the column index, so it stays right with offline
//     CPUs.
//   - `<procfs>/softirqs`.
//   - `<procfs>/irq/N/{smp,effective}_affinity_list`, for each line of interest.
//   - `<sysfs>/devices/system/node/node*/cpulist`, to map CPUs to nodes.
//   - The device's `numa_node`: `/sys/class/nvme/nvmeX/device/numa_node` or
//     `/sys/class/net/<if>/device/numa_node`.
//   - Whether `irqbalance` runs (procfs).
//
// The collector parses `/proc/interrupts` and `/proc/softirqs` itself
// (`internal/irq`). prometheus/procfs panics on a truncated interrupts line and
// drops the header's CPU ids.
//
// A file cut mid-line, a line with fewer counts than the header has CPUs, a
// non-numeric count, or an empty file makes the scrape fail: the error names
// the file and line, and success is 0. A line of interest whose `/proc/irq/N`
// directory is gone, or whose device's sysfs directory is gone, loses only
// those series.
//
// Why not prometheus/procfs for diskstats: its parser (v0.23) stops at the
// first line it cannot read and returns no device after it. walab's parser
// (`internal/blockdev`, fuzzed, committed corpus) drops only that line. The
// kernel prints the millisecond columns as 32-bit numbers that wrap (after 71
// minutes for `time_in_queue` at queue depth 1000); walab widens them across
// the wrap while it runs, so `rate()` does not read a wrap as a reset.
package collector
