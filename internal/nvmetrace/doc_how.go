// Package nvmetrace: how the tracer works, what it costs and how it is tested (moved from docs/placement-trace.md).
//
// # How
//
// A BPF program on the kernel's `nvme:nvme_setup_cmd` tracepoint looks at
// every command the nvme driver sets up. For NVMe Write commands (opcode
// 0x01) it reads, from the command's CDW12 and CDW13, the directive type
// (bits 23:20: 0 none, 1 streams, 2 data placement), the directive-specific
// value (CDW13 bits 31:16: the stream id or the placement handle) and the
// number of logical blocks (NLB + 1, CDW12 bits 15:0), and adds one command
// and its blocks to a per-CPU hash map keyed by controller, namespace,
// directive type and id. Nothing goes to user space per event; the exporter
// reads and sums the map at scrape time and multiplies blocks by the
// namespace's logical block size from sysfs.
//
// The program is built at start with cilium/ebpf's `asm` package, about 50
// instructions, instead of compiled C (bpf2go): the field offsets come from
// the tracepoint's `format` file in tracefs when the exporter starts, so no
// kernel struct layout is compiled in, and the build needs no clang. The
// record's `cdw10` array starts at an odd offset, and tracepoint context
// reads must be aligned, so the program assembles CDW12/CDW13 from bytes.
// It only reads: the tracepoint sees commands, it does not change them.
//
//	placement_trace:
//	  tracefs: /sys/kernel/tracing   # default <sysfs>/kernel/tracing
//	  max_placement_ids: 16          # per device and directive; later ids fold into placement_id="other"
//
// Turn it on with `--collector.placement_trace`. It needs CAP_BPF and
// CAP_PERFMON (or CAP_SYS_ADMIN), tracefs and the nvme driver loaded.
// Tracefs is needed only while the tracer opens (the event's `format` and
// `id`): where nothing is mounted at `tracefs:` and it is an empty
// directory, the exporter mounts tracefs there (mount(2) needs
// CAP_SYS_ADMIN), opens the tracer and unmounts it, leaving the mounts as
// they were; it mounts without options (tracefs is one superblock: options
// would change its owner and mode everywhere) and never over a directory
// that holds anything. Tracefs is root's (mode 0700), so a non-root exporter
// such as the packaged unit's also needs CAP_DAC_READ_SEARCH to read it
// (docs/install.md). When it cannot run, `walab_placement_trace_up` is 0,
// `walab_placement_trace_error_info{reason}` says why (`no_tracefs`: not
// mounted and nowhere to mount it; `tracefs_permission`: mounting refused,
// or mounted and not readable, the log naming the capability;
// `no_tracepoint`, `permission`, `no_bpf`, `other`), the exporter logs the
// reason once, and tries again every minute (the driver may load later).
// The command counters are then absent, never 0.
//
// Namespaces are named `nvme<controller>n<nsid>` for the block size; with
// native NVMe multipath the block device carries the subsystem's number, and
// the bytes of such a namespace are absent (the commands are still counted).
// The counts start at 0 when the exporter starts (counters: `rate()` and
// `increase()` handle the restart).
//
// # Tested
//
//   - `internal/nvmetrace`: the format parser (fuzzed, with the format file
//     Debian 6.1's kernel prints), and the program loaded into this machine's
//     kernel (the verifier accepts it, aligned and byte-wise paths).
//   - `test/qemu` `TestQEMUPlacementTrace`: Debian's kernel under QEMU with an
//     emulated NVMe controller; the exporter in the guest attaches the tracer;
//     the guest writes 4 MiB with `dd oflag=direct`, then 24 Writes naming
//     placement handle 5 and 8 naming stream 3 through the I/O passthrough
//     ioctl (QEMU 7.2 supports neither directive and may refuse them; the
//     kernel sent them, and that is what is counted). The scrape shows exactly
//     24 and 8 commands, 24 x 512 bytes, and 4 MiB of plain writes; the guest's
//     format file must equal the committed fixture. The exporter runs the
//     `io_size` tracer too (below): dd's 4 MiB are 4 MiB of write I/Os at
//     `nvme0n1`.
//   - Cost: the same test times 3,000 direct 4 KiB writes without the tracer,
//     with it, and without it again, and logs the figures; the measurement is
//     `bench/tracer-cost.sh` (below). A scrape reads one map entry per
//     controller/namespace/directive/id seen.
//   - `test/qemu` `TestSummarizeTracerCost`, `TestSummarizeTracerCostIncomplete`,
//     `TestTracerCostVerdicts`, `TestParseTracerArmsRejects`,
//     `FuzzParseTracerArms`: the bench's pairing, ratios, verdicts and
//     per-run arithmetic on known arms, in `make test`.
package nvmetrace
