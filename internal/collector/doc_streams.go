// Package collector: what the streams collector reads on the device and on the host, and how the md/dm array chain is walked (moved from docs/collectors-host.md).
//
// # Device side
//
// Every read goes through `admin.Device`. Identify Controller and Identify
// Namespace (of the first namespace) are read once per controller and cached.
// Each scrape then reads the following:
//
//   - **Directives.** This needs OACS bit 5. The collector sends Directive Receive
//     Identify / Return Parameters (DTYPE 0, DOPER 1, 4096 bytes) to the first
//     namespace's NSID. Controllers reject NSID 0xFFFFFFFF here. The reply gives
//     the supported and enabled bitmaps for `identify`, `streams` and
//     `data_placement`.
//   - **Streams.** This needs the Streams directive to be supported. The collector
//     reads Streams Return Parameters (DTYPE 1, DOPER 1, 32 bytes). From them it
//     exports MSL, NSSA, NSSO, NSA and NSO. It also exports the write size
//     (SWS × LBA size) and the granularity (SGS × SWS × LBA size). When the
//     directive is also enabled, it reads Get Status (DTYPE 1, DOPER 2, 4 KiB) for
//     the open stream count.
//   - **FDP.** This needs CTRATT bit 19. The collector sends Get Features 0x1D with
//     CDW11 set to the endurance group of the first namespace (1 if that is
//     unknown). DW0 bit 0 says whether FDP is enabled, and bits 15:8 give the
//     active configuration index. The collector then reads the FDP configurations
//     log 0x20 with LSI set to the endurance group: first its 16-byte header, then
//     the size the header gives. From the active configuration it takes the
//     reclaim unit handle count and the nominal reclaim unit size. Last it reads
//     the reclaim unit handle usage log 0x21, which gives how many handles are
//     used, split into host-specified and controller-specified.
//
// Some answers are "unsupported" (`admin.IsUnsupported`: Invalid Opcode or
// Invalid Field). The collector remembers those per device and never sends that
// read again. The series it would have produced are absent. When OACS bit 5 is
// clear, the directive gauges are 0, and nothing is ever sent.
//
// Any other error fails the collector for that scrape (success 0). The error
// names the device. The other devices and the host metrics are still served.
// A controller whose Identify cannot be read gets
// `walab_placement_hints_effective{reason="device_unreadable"} 0`.
//
// # Host side
//
//   - **`walab_kernel_nvme_streams_param{present}`** reads
//     `<sysfs>/module/nvme_core/parameters/streams`. The parameter exists on
//     kernels 4.13 to 5.17.
//   - **`walab_write_hint_files` and `walab_write_hint_bytes{dir,hint}`** come
//     from a walk of each data dir. For each regular file the walk reads the
//     Linux write-life hint with `fcntl(F_GET_RW_HINT)` (1035). The values are 0
//     `not_set`, 1 `none`, 2 `short`, 3 `medium`, 4 `long` and 5 `extreme`.
//     Anything else is `unknown`. Every label is always exported, with 0 for
//     empty labels, so the series don't come and go.
//   - The walk goes through an `os.Root`. It never follows symlinks: symlinked
//     files and directories are not counted, and no path can lead outside the
//     root, even one swapped for a symlink during the walk.
//   - Files are opened with `O_NOFOLLOW|O_NONBLOCK|O_NOATIME`. Fifos, sockets
//     and devices are skipped.
//   - The walk stops at `max_files`. A walk runs at most once per
//     `rescan_interval`. If the data dir does not exist yet, its series are
//     absent and a warning is logged, but this is not a collector failure.
//   - A hint lives in the in-memory inode only. It is not written to disk, so
//     after inode eviction, `drop_caches` or a reboot a file reads `not_set`
//     until it is tagged again. Counts that drop back to `not_set` usually mean
//     exactly that.
//   - **`walab_placement_daemon_running{daemon}`** is 1 when a process's
//     `/proc/<pid>/comm` equals the name, or when the base name of its `argv[0]`
//     does. The kernel cuts comm to 15 bytes, and that is allowed for. If
//     `daemon_pid_file` is set it is checked first. A stale pid file whose process
//     is gone, or whose pid now belongs to another program, does not count.
//
// # md and dm: the array chain (seed 001)
//
// For every md array and dm device the walk finds, the collector also reads:
//
//   - `walab_blockdev_member_info{array,device}`: its direct members
//     (`slaves/`), and `walab_blockdev_leaf_info{array,device,controller}`: the
//     devices at the bottom of its stack with their NVMe controller. An array
//     found from one member brings all its members, so the sums are whole.
//   - for md: level, members (`raid_disks`), data members, chunk, degraded
//     members, the running sync (`sync_action`: resync, recover, check, repair,
//     reshape) and its progress, read from `/sys/block/mdN/md/` by walab itself
//     (prometheus/procfs reads every array at once and stops at the first file
//     it cannot read, and has no `md/layout`, which RAID 10's copies need); and
//     the level's full-stripe WA: RAID 0 and linear 1, RAID 1 n, RAID 10 its
//     copies (near × far from the layout), RAID 4/5 (k+1)/k, RAID 6 (k+2)/k with
//     k data members.
//
// The full-stripe value is a floor for parity levels: a write smaller than a
// stripe makes md read the old data and parity (read-modify-write) or the
// rest of the stripe (reconstruct-write) and write the data and the parity,
// so 4 KiB random writes on RAID 5 cost about 2 member writes per array
// write. The recording rules `array:walab_raid_*` (docs/lab.md) give the
// measured RAID WA, the overhead over theory and the array-to-NAND WA per
// hour, and leave out every hour in which a sync ran.
//
// `test/qemu` proves it on the kernel's md driver: `TestQEMUMDRaid5` builds a
// RAID 5 (2+1) over three emulated NVMe controllers through md's sysfs
// interface (no mdadm: `new_array`, `level`, `new_dev`, slots and sizes,
// metadata `none`), sees the resync while it runs (throttled to 1 MB/s), puts
// a dm-linear device over the array (the DM ioctls dmsetup uses, from a small
// guest program), then writes 16 MiB of full stripes through the dm device
// with `dd oflag=direct`: the exporter finds dm-0 → md0 → the three
// namespaces and their controllers, dm-0 and md0 each got the 16 MiB, the
// member / array bytes of md0 are 1.5000, equal to the kernel's diskstats
// ratio, and walab's recording rule evaluated by promtool on the two scrapes
// gives the same.
package collector
