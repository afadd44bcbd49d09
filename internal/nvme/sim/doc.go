// Package sim is a simulated NVMe drive: an admin.Backend that answers
// Identify, SMART, OCP 0xC0, Endurance Group and Streams directive commands
// from a page-mapped FTL model (internal/ftl) driven by synthetic or
// MySQL-like traffic (internal/simload). Its write amplification is the
// model's, so the whole lab - exporter, alerts, dashboards, the placement
// switch - can run without an NVMe drive. It always says it is simulated.
//
// What the pages say (offsets as in `nvme-layouts.md`; byte counters are full scale):
//
//	| command | contents |
//	|---|---|
//	| Identify Controller | VID/SSVID `0x0000`; SN from `serial` (default `WALABSIM` + 8 hex digits from the seed); MN `walab simulated NVMe`; FR `SIM00001`; MDTS 5 (128 KiB); VER 2.0; CTRATT bit 4 (endurance groups, **no** FDP bit 19); OACS bit 5 (directives); LPA bit 2 (extended log data); WCTEMP 343 K, CCTEMP 358 K; TNVMCAP = capacity; MEGCAP = physical bytes; ENDGIDMAX 1; NN 1; a SUBNQN |
//	| Identify Namespace 1 | NSZE = NCAP = capacity ÷ LBA size (4096, or the page size if smaller); NUSE = mapped (untrimmed) blocks; NSFEAT thin provisioning; one LBA format; ENDGID 1 |
//	| SMART 0x02 (NSID all, 0 or 1) | temperature 313 K; spare 100 %, threshold 10 %; Percentage Used from erase counts; **Data Units Written** = ⌈host bytes ÷ 512,000⌉; Host Write Commands; Power Cycles 1; Power On Hours = simulated hours |
//	| OCP 0xC0 | **Physical Media Units Written** = NAND bytes (host + GC, byte exact, so short-window WA is precise); user data erase count max @88 and min @92; % free blocks @120; total NUSE @152; NAND average erase count @224; log page version 4 @494; the OCP GUID @496 |
//	| Endurance Group 0x09 (LSI 1) | Percentage Used; endurance estimate; Data Units Written and Media Units Written in 10⁹-byte units, rounded up; host write commands; total capacity = physical bytes |
//	| FDP, only with `fdp: true` | Identify Controller CTRATT bit 19. Get Features 0x1D (CDW11 = endurance group 1): DW0 = FDPE with configuration index 0. Log 0x20: one configuration with one reclaim group, NRUH = the model's streams (RUH i = stream i), RUNS = one erase block, every handle initially isolated. Log 0x21: handles in use (RUH 0, plus the rule streams while placement is on). Log 0x22: HBMW = host bytes, MBMW = NAND bytes (the same counter as OCP PMUW), MBE = erases × block bytes. Log 0x23: no events. Directive Identify: Data Placement supported and enabled. |
//	| Directive Receive, NSID 1 | Identify: Identify and Streams are supported, and Streams is enabled while placement is on. Streams parameters: MSL = NSSA = highest rule stream id; NSSO = NSO = the number of distinct rule streams while placement is on, 0 when off; SWS = 16 KiB; SGS = one erase block. Streams status: the open stream ids. |
//
// Everything else gets the status a controller gives for something it lacks, which the
// probe reads as "absent":
//   - Get Features, FDP logs 0x20–0x23 (without `fdp: true`), other log ids, other CNS values
//     and unknown directive operations answer Invalid Field (DNR).
//   - Other namespaces, and Directive Receive on NSID all, answer Invalid Namespace.
//   - Transfers longer than MDTS and log offsets past the end answer Invalid Field.
//
// With these pages the exporter's probe picks **OCP 0xC0** as the NAND source, or the **FDP
// statistics log** when `fdp: true`. `TestProbePicksSource` runs the real probe against the
// drive to check this. The simulator sits behind
// `admin.Device` like any backend, so the read-only guard still applies: a write opcode never
// reaches it.
// `Drive.Precondition()` puts the drive in one known state. It seals every open block and
// deallocates every logical page (the discard of a `mkfs`). Then it writes, once, in LBA order, on
// stream 0:
//
//   - under the filesystem (`sim.fs`), the pages the files hold, as the allocator has them laid out:
//     what a copy of the files onto the freshly discarded drive writes. The filesystem holds still
//     meanwhile (`simfs.FS.WithLive`), so no write comes between reading the layout and rewriting it.
//     Space InnoDB reserved with `fallocate` counts as held, as a copy writes a file's whole length;
//   - with a generator, every logical page, as a sequential fill of the whole namespace does.
//
// Afterwards:
//
//   - every page that holds a file's data is mapped exactly once, and under the filesystem no other
//     page is;
//   - every full block holds consecutive pages of that one write.
//
// Two runs that each start after it therefore start from the same drive state, whatever ran before.
// The deallocation and the writes count like a host's: host, NAND and trimmed bytes, host write
// commands and erases grow, and no counter goes back. The fill belongs to no file class, and the
// state's `precondition_written_bytes` counts it apart. TestLab relies on that: it holds the drive's
// other host bytes to the filesystem's pages. Other
// methods get 405. A drive whose filesystem feed stopped answers 503 and is not rewritten.
//
// # Wiring
//
// `fleet.Open` builds the controllers from one source (replay directory, device list, sysfs
// discovery) and calls its `Fallback` when discovery finds no controller. The exporter's
// composition root, `internal/exporterapp`, passes a fallback that, when the file has a `sim:`
// section (and only then: without one it serves no drive, logs why and exports
// `walab_nvme_controllers 0`), builds the drive of that section (`sim.LoadConfig`, `sim.New`) and wraps it with `sim.Controller` (`Simulated` is true).
// It remembers the drives it made: it mounts the first one's `sim.PlacementPath` handler behind
// the mutation guard, and on SIGHUP it re-reads the file and calls `Drive.Reload`, which switches
// placement in place (`errors.Is(err, sim.ErrRebuild)`: other keys changed and apply on restart).
// `exporterapp.Options.Simulator` builds a different drive, for tests. When the drive has `sim.fs`, `exporterapp.New` mounts
// its filesystem after the fleet is open (`simfs.Mount`, with the drive as its sink), registers its
// `walab_simfs_*` collector, and `App.Close` unmounts it.
//
// `Drive.Close` (also reached through `admin.Device.Close`) stops the background ticker.
package sim
