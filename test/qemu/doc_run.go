// Package qemu: how a QEMU run goes, the FDP drive and the database host guest, in detail (moved from docs/qemu.md), and seed 000's rehearsal (from docs/seed000-nvme.md).
//
// # How a run goes
//
//  1. **Kernel.** The machine's running kernel is not Debian's (and has no
//     modules), so the test boots the one from `linux-image-amd64`:
//     `/boot/vmlinuz-<v>` with `/lib/modules/<v>/`, taking the newest version
//     that has both (`WALAB_QEMU_KERNEL_VERSION=<v>` to pick one).
//  2. **Initramfs, built by the test in Go** (`cpio.go`, a `newc` writer;
//     `initramfs.go`): static busybox as the shell and tools, `/dev/console`,
//     the kernel modules `nvme` needs (resolved from `modules.dep`,
//     dependencies first, plus the `crct10dif_generic` and
//     `crc64_rocksoft_generic` soft dependencies that `modprobe` would have
//     loaded; `.ko.xz`/`.ko.zst` are decompressed on the host because busybox
//     `insmod` wants plain ELF), the statically built guest program
//     (`CGO_ENABLED=0 go build ./test/qemu/guest`), and a generated `/init`.
//  3. **QEMU** (`vm.go`): `qemu-system-x86_64 -accel tcg -m 512 -smp 1
//     -nic none -no-reboot -display none`, two controllers
//     `-device nvme,serial=walab0001,drive=d0 -drive file=disk0.raw,if=none,id=d0,format=raw`
//     (and `walab0002`), 64 MiB sparse raw images. A `Controller` with `FDP`
//     or explicit `Namespaces` becomes an `nvme-subsys` (NQN = serial), the
//     `nvme` controller in it and one `nvme-ns` per namespace; `OCP` adds
//     `ocp=on`. The first serial port is
//     the console, the second carries the results. The run is bounded by a
//     4-minute context; on expiry the whole process group is killed. All
//     files live in the test's temporary directory, removed pass or fail.
//  4. **In the guest** (`/init`): mount proc, sysfs, devtmpfs; `insmod` the
//     modules; wait for `/dev/nvme0n1` and `/dev/nvme1n1`; bring up `lo`. A
//     step that writes a namespace finds its disk with `nsdev SERIAL NSID`
//     (the disk whose `nsid` matches and whose subsystem NQN ends in the
//     serial): Linux 6.12 names disks by subsystem and by scan order, so
//     `nvme1n1` may be NSID 2 of controller `nvme0`. Then
//     * `exporter capture --out /out/1`: the real exporter (built with
//     `CGO_ENABLED=0 go build ./exporter`) finds both controllers through
//     sysfs and writes one replay folder per controller;
//     * `dd if=/dev/urandom of=/dev/$(nsdev walab0001 1) bs=1M count=8 iflag=fullblock oflag=direct`
//     on the controller whose sysfs serial is `walab0001` (busybox 1.35's
//     `dd` supports `oflag=direct`, so no helper program is needed), `sync`;
//     * `exporter capture --out /out/2`;
//     * `walab-guest -out /out/guest nvme0 nvme1`: walab's own small program
//     (`test/qemu/guest`) sends a fixed command list (`report.go`) through
//     `admin.OpenIoctl`, including 0xC0, 0x09, 0x22 and Directive Receive
//     and one deliberate Format NVM, and writes `results.json` with each status and
//     the device's own command counters;
//     * `exporter --web.listen-address=127.0.0.1:10131 --nvme.cache-max-age=200ms`
//     in the background, scraped twice with busybox `wget` a second apart
//     (loopback only; the guest has no network device);
//     * `tar` of `/out` (with `dmesg` and each step's log and exit code),
//     base64-encoded between `WALAB-OUT-BEGIN`/`WALAB-OUT-END` on
//     `/dev/ttyS1`, then `poweroff -f`. A second serial port keeps the
//     payload free of kernel messages and needs no extra driver.
//  5. **On the host**, the test decodes the tar and asserts:
//     * every step exited 0 (otherwise it prints the failed steps' output);
//     * Identify (decoded from the capture with `internal/nvme/decode`):
//     serials `walab0001`/`walab0002` as given on the QEMU command line,
//     model `QEMU NVMe Ctrl`, VID `0x1B36`; `walab_nvme_info` says the same,
//     with `source="endurance_group"` (below);
//     * SMART Data Units Written: 0 before, 17 after on `walab0001`
//     (QEMU keeps `ceil(sectors/1000)`; 8 MiB = 16384 sectors = 16.384
//     units, rounded up as the specification says), at least 8 more host
//     write commands, and `walab_nvme_smart_data_units_written_bytes_total`
//     = 17 x 512000. `walab0002`, never written, does not move;
//     * what a plain QEMU 10 controller offers: QEMU 10 puts every controller
//     in a subsystem, so Identify advertises endurance groups (CTRATT bit 4)
//     and Directives (OACS bit 5) but not FDP (bit 19). Both captures hold
//     0x09 and Directive Receive Identify, none holds 0xC0 or an FDP page or
//     feature. The exporter polls 0x09 as its NAND source
//     (`endurance_group`), asked for 0xC0 exactly once (one error, status
//     `0x4002`) and never sends an FDP command. The guest program sends each
//     once anyway: 0xC0 comes back 0x4002 (Invalid Field, DNR), 0x22 0x4029
//     (FDP Disabled, DNR), 0x09 and Directive Receive succeed. QEMU's 0x09
//     counts in a unit that leaves both counters 0 below a gigabyte
//     (docs/nvme-decoders.md), so `walab_nvme_host_written_bytes_total` is 0:
//     the page's own value, shown as it is;
//     * nothing outside the read-only allowlist reached the kernel: the
//     exporter's `opcode` labels are only the four allowed ones and
//     `walab_nvme_admin_commands_refused_total` is 0; the guest program's
//     counters hold only allowed opcodes and its Format NVM (0x80) attempt
//     was refused in-process (`refused` = 1);
//     * the capture replays: (a) `replay.Open` on `/out/2/<ctrl>` with the
//     guest program's command list decodes to exactly the values the guest
//     program read live, with the same supported/unsupported answers;
//     (b) the same exporter binary on the host, `--nvme.replay=/out/2` on a
//     free 127.0.0.1 port, publishes the same value for every series of
//     every `walab_nvme_*` family as the live exporter in the guest (the
//     `walab_nvme_admin_*` counters and the WA sampler's own state,
//     `walab_nvme_wa_*` and `walab_nvme_run_start_*`, excepted: the two
//     processes have different command histories and sample times by
//     design). The one command the replay answers differently is 0x22: the
//     exporter never sent it, so the capture has no answer and the replay
//     says unsupported where the live controller said FDP Disabled.
//
// # The FDP drive (TestQEMUFDP, issue 34)
//
// walab's FDP decoders were written from the specification and tested on
// pages walab made itself. This test reads an FDP drive that QEMU's NVMe
// maintainers wrote from TP4146 (hw/nvme, QEMU 10.0.2), through the real
// kernel, and compares walab's reading with the command line and with a
// second reader.
//
// **The machine.** Two controllers:
//
//	-device nvme-subsys,id=subsys0,nqn=walabf001,fdp=on,fdp.runs=2097152,fdp.nrg=2,fdp.nruh=8
//	-device nvme,id=ctrl0,serial=walabf001,subsys=subsys0
//	-drive file=disk0-1.raw,... -device nvme-ns,drive=d0_1,bus=ctrl0,nsid=1,fdp.ruhs=1;3;5   (32 MiB)
//	-drive file=disk0-2.raw,... -device nvme-ns,drive=d0_2,bus=ctrl0,nsid=2                  (16 MiB)
//	-drive file=disk1.raw,...   -device nvme,serial=walabo001,drive=d1,ocp=on                (16 MiB)
//
// Namespace 1's placement handles 0, 1, 2 map to reclaim unit handles 1, 3
// and 5; namespace 2 names none, so QEMU gives it the first unused handle, 0,
// as a controller-specified one. A placement identifier (PID) carries the
// reclaim group in its top RGIF bits: QEMU makes RGIF the bit length of the
// group count (2 groups: 2 bits), so PID 0x4002 is group 1, handle 2.
//
// **In the guest**, with the exporter serving (placement tracer on):
// a scrape and `exporter capture` before any write; `fdpctl events` (Set
// Features 0x1E: enable "reclaim unit not fully written" on namespace 1's
// placement handle 1); `dd` 1 MiB to namespace 1 and 512 KiB to namespace 2
// (no directive: placement handle 0); `placewrite -dtype 2` 24 one-block
// writes with PID 1, 8 with PID 2 and 4 with PID 0x4002 through
// `NVME_IOCTL_IO_CMD`; `fdpctl ruh-update -pids 1` (I/O Management Send,
// Reclaim Unit Handle Update: PID 1's unit is ended early); `dd` 1 MiB to the
// OCP drive; a second capture; then the **second path**: `fdpctl`
// (test/qemu/fdpctl, with its own `struct nvme_passthru_cmd` layout in
// internal/nvme/passthru, not walab's `internal/nvme/admin`) reads 0x20 (its
// length from the header), 0x21, 0x22, 0x23 (host and controller events),
// Get Features 0x1D, the RUH status (I/O Management Receive) and 0xC0, and a
// last scrape.
//
// **What walab read, against what QEMU was configured with** (the pages of
// one run are kept in `test/qemu/testdata/qemu10-fdp/` and
// `TestQEMUFDPPages` decodes them again without a VM):
//
//	| what | configured / written | QEMU's page (fdpctl) | walab (capture, decoder, metric) |
//	|---|---|---|---|
//	| source picked | FDP on | CTRATT bit 19, 0x1D DW0 = 0x1 (enabled, configuration 0) | `walab_nvme_info{source="fdp"}` |
//	| reclaim unit size | `fdp.runs=2097152` | 0x20 RUNS @16 = 2097152 | `walab_nvme_fdp_reclaim_unit_size_bytes` 2097152 |
//	| reclaim groups | `fdp.nrg=2` | 0x20 NRG @4 = 2, FDPA 0x82 (valid, RGIF 2) | decoder: NRG 2, RGIF 2, valid |
//	| reclaim unit handles | `fdp.nruh=8` | 0x20 NRUH @8 = 8, eight descriptors of type 1 (initially isolated) | `walab_nvme_fdp_reclaim_unit_handles` 8 |
//	| handle usage | `fdp.ruhs=1;3;5`, namespace 2 none | 0x21 NRUH 8, RUHA 2,1,0,1,0,1,0,0 | `..._handles_used{by="host"}` 3, `{by="controller"}` 1 |
//	| host bytes | 1 MiB + 512 KiB + 36 x 512 B = 1,591,296 | 0x22 HBMW = 1,591,296 | `walab_nvme_host_written_bytes_total{source="fdp"}` 1,591,296; the capture's 0x22 is byte-equal to fdpctl's |
//	| media bytes | host + the early-ended unit's rest, 2 MiB - 24 x 512 B = 3,676,160 | 0x22 MBMW = 3,676,160, MBE 0 | `walab_nvme_media_written_bytes_total{source="fdp"}` 3,676,160 (WA 2.31) |
//	| events | PID 1's unit ended early, events enabled | 0x23 (LSP 1): 1 event, type 0, flags 0x07, PID 1, NSID 1, group 0, handle 3; controller events: 0 | `walab_nvme_fdp_events{type="ru_not_fully_written"}` 1, every other type 0 (0 for all before events were enabled); `walab_nvme_fdp_event_newest_timestamp_seconds` = the event's timestamp (origin 1: set by the guest kernel); the capture's two 0x23 pages decode equal to fdpctl's |
//	| writes by placement | PID 1 x 24, 2 x 8, 0x4002 x 4, plain 3 commands | RUH status: RUAMW 2048/4096/4096/4096/4088/4092 blocks for PIDs 0, 0x4000, 1, 0x4001, 2, 0x4002 | tracer: `walab_nvme_write_commands_total{directive="data_placement",placement_id="1"}` 24, `"2"` 8, `"16386"` 4; the tracer's bytes on the FDP drive = HBMW |
//	| OCP 0xC0 | `ocp=on`, 1 MiB written | PMUW @0 = 1,048,576, version 5 @494, OCP GUID @496 | `walab_nvme_info{source="ocp_c0"}`, `walab_nvme_media_written_bytes_total{source="ocp_c0"}` 1,048,576 |
//
// walab's reading agreed with QEMU's pages on every field; no decoder
// changed. Where QEMU's pages are not what the specification or a real drive
// gives (the OCP host-bytes "media" counter, the 0x09 units, QEMU's early-end
// accounting) is listed in docs/nvme-decoders.md.
//
// Not covered: `walab compare` on a baseline (plain writes) and a candidate
// (placement writes) from this drive. It needs both runs' series in a
// Prometheus-API store on the host; the guest has no network, so that is a
// further step (scrapes with timestamps, `promtool tsdb create-blocks-from`).
//
// # The database host guest
//
// `StartDBHost` (test/qemu/dbhost_harness.go, dbhost.go) boots a guest that
// serves as seed 000's database host for `walab experiment`. It runs until the
// test stops it:
//
//   - **Userland: this machine's own `/usr`**, shared read-only over virtio-9p
//     (`-fsdev local,readonly=on`). The guest runs Debian's packages as they are
//     installed here: `mariadbd`, `sshd`, `mkfs.xfs`, `numactl`, `cp`. Nothing is
//     downloaded, and no root filesystem is built. This is faster than a
//     debootstrap root and needs no cache. The initramfs is the small writable
//     root: busybox until `/usr` is mounted; `/etc` with passwd, the host's
//     `ld.so.cache`, an sshd configuration with a host key and the run's
//     authorized key, and the exporter's configuration; `/bin`, `/sbin` and
//     `/lib64` link into `/usr` (bookworm's merged `/usr`); `/lib` holds the
//     modules until they are loaded and then links to `usr/lib`.
//   - **Drive:** one controller in an FDP subsystem (`walabdb01`: 16 MiB reclaim
//     units, one reclaim group, 4 handles) with two 1 GiB namespaces. Namespace 1
//     is on reclaim unit handle 1 (`fdp.ruhs=1`) and namespace 2 on handle 2. The
//     stock `nvme` driver (with native multipath, so the disks are
//     `nvme0n1`/`nvme0n2`). At boot `/init` enables the FDP event "reclaim unit
//     not fully written" on each namespace's placement handle 0 with
//     `test/qemu/fdpctl events` (Set Features 0x1E: the drive's set-up, as
//     `nvme fdp set-events` would be on a server; the exporter sends no such
//     command). QEMU then logs an event naming the namespace and the handle each
//     time a namespace's writes fill a reclaim unit, and keeps the latest 63:
//     at 16 MiB a unit they cover a GiB of writes.
//   - **Network:** one virtio NIC on QEMU's user-mode network with `restrict=on`.
//     The guest reaches nothing outside, and every forward listens on the host's
//     127.0.0.1 only (`hostfwd=tcp:127.0.0.1:P-:22`, `:3306`, `:3307`,
//     `:10131`, each P a free ephemeral port).
//   - **Backup:** at `/bak`, either a host directory shared read-write over 9p,
//     or, when `StartDBHost` is given a file, an ext4 image on a read-only
//     virtio disk (made by `qemu.BackupImage` with `mke2fs -d`, no mount) whose
//     `bak/` is bound there. Seed 000 keeps the backup on a second drive; the
//     rehearsal uses the image, because copying a 279 MB datadir over 9p took
//     minutes under TCG.
//   - **The exporter** (static, real drive: no `sim:` section) watches `/data`
//     and `/data2`, the `mariadbd` processes, and reads InnoDB and the settings
//     of both instances as user `walab` over TCP (`qemu.DBHostMySQLGrants`,
//     which the rehearsal's backup carries).
//   - 2 vCPUs, 2 GiB. The guest writes `WALAB-DBHOST-READY` to its second
//     serial port once sshd and the exporter are started.
//
// **With systemd** (`StartDBHostSystemd`, dbhost_systemd.go), for the packaged
// exporter: `/init` mounts the host's `/usr` under an overlay on a tmpfs (so
// dpkg can install into it) and hands PID 1 to this machine's systemd; the
// default target is `multi-user.target`, with the units a minimal server does
// not need masked (gettys, logind, D-Bus, first boot, hwdb and ldconfig
// updates, timers: each costs seconds under TCG). A oneshot
// `walab-guest.service` does what `/init` does above (backup, network, sshd,
// FDP events) and writes the ready line. The initramfs carries this machine's
// dpkg status (its `/usr` is what it describes), `login.defs` and
// `adduser.conf`, and walab-exporter's .deb as `make dist` builds it. The
// test then does what docs/install.md tells an operator: `dpkg -i`, the
// rehearsal's sections appended to `/etc/walab/exporter.yml` (no file there
// before the package: dpkg would ask about a conffile), `systemctl enable
// --now walab-exporter`. systemd itself applies the unit's user,
// capabilities and sandbox, udev the package's rule on `/dev/nvme0`, and
// systemd makes `/var/lib/walab`. `TestQEMUDBHostSystemd` checks those and a
// scrape; the seed 000 rehearsal runs on this guest.
//
// `TestQEMUDBHost` checks the guest itself. It answers ssh with the run's key
// under its hostname, sees both namespaces of `walabdb01`, runs `mariadbd` and
// `numactl` from the host's `/usr`, and its exporter reports
// `walab_nvme_info{serial="walabdb01",source="fdp"}` with FDP enabled. The
// seed 000 rehearsal on it is described in [seed000-nvme.md](seed000-nvme.md).
// `WALAB_QEMU_BUSYBOX` names another static busybox than `/bin/busybox`.
//
// # The rehearsal (TestSeed000NVMeQEMU)
//
// `e2e/seed000_nvme_test.go` runs this plan file unchanged against a QEMU guest.
// The guest is described in [qemu.md](qemu.md#the-database-host-guest). Only
// the variables change:
//
//   - `mariadbd` replaces `mysqld`, with `--no-defaults`, a 256 MiB buffer pool
//     (the whole 1-warehouse dataset), a 16 MiB redo log and
//     `--innodb-flush-method=fsync` (reads come from the page cache the restore
//     filled, not through O_DIRECT from the emulated drive);
//   - `mariadb-install-db` would initialise the datadir; the rehearsal restores
//     the backup instead (below), which brings the system tables;
//   - instance 1 runs on CPU 0 and instance 2 on CPU 1, with `interleave:0` (the
//     guest has one NUMA node);
//   - the NIC is `eth0`, and its `irq_affinity` failure only warns (virtio's
//     lines);
//   - the observed placement check stops the run when it fails
//     (`WALAB_PLACEMENT_OBSERVED_ON_FAIL=stop`): the guest enables FDP events on
//     both namespaces at boot, and QEMU logs one, naming the namespace and its
//     handle, each time a namespace's writes fill a reclaim unit;
//   - TPC-C uses 1 warehouse and 2 terminals, with runs of 60 s and rounds of 20 s;
//   - the backup is made before the guest boots, by this machine's own mariadbd
//     (the binary the guest runs from the shared `/usr`), `loadgen tpcc prepare`
//     and `loadgen tpcc check`, and the plan reuses it (`WALAB_REUSE_BACKUP=yes`).
//     Under TCG the guest loads TPC-C at a few hundred rows per second, an hour
//     for 1 warehouse's 600,000 rows, and `tpcc check`'s whole-table joins
//     outlast loadgen's 60 s read timeout; natively both take seconds. The
//     plan's load step therefore runs 20 TPC-C transactions on the restored
//     instance (`WALAB_LOAD_PHASE=run --time 300 --events 20
//     --web.listen-address=127.0.0.1:0`);
//   - Prometheus scrapes every 5 s, and the guest's exporter reads the drive at
//     most every 5 s: under TCG a scrape takes seconds;
//   - the backup reaches the guest as an ext4 image on a read-only virtio disk
//     (`qemu.BackupImage`, made with `mke2fs -d`, no mount), bound at `/bak`: the
//     plan's six copies of it (prepare, two per reset, the candidate's switch)
//     read a block device, where over 9p each copy took minutes under TCG.
//
// It runs in `make test`: `scripts/test.sh` runs it as a `go test` of its own
// after the rest of the suite (the guest's emulated CPUs beside the e2e
// package's experiments starve their 1-second scrapes on a 2-core machine). Under
// `CI=true` a missing piece (QEMU 10, the kernel, busybox, sshd, mariadbd,
// mke2fs, Prometheus) fails it. Alone:
//
//	CI=true go test -v -count=1 -timeout 60m -run TestSeed000NVMeQEMU ./e2e/
//
// `WALAB_E2E_KEEP=DIR` keeps the experiment's directory (report, state,
// fingerprints, logs). Measured times are in
// [bench/RESULTS-e2e.md](../bench/RESULTS-e2e.md) (*TestSeed000NVMeQEMU*).
//
// QEMU's drive does no garbage collection: its media bytes are its host bytes,
// except that its FDP model counts the bytes that complete a reclaim unit
// twice (they are added again when the next unit opens), a few per cent at
// most. So the WA is about 1.0 in both arms, and the report says so
// (`WA over whole runs ...: 1.000 → 1.000`). Runs of 60 s hold 3 rounds of
// 20 s, fewer than the 5 a steady state needs, so `walab compare` finds the
// comparison NOT VALID and the report gives no reduction; its `placement
// (observed)` passes on each namespace's own write counter. The rehearsal
// proves that every real step and check ran, on the facts of a real kernel,
// and that the drive's own pages show each namespace's writes on its own
// handle. It does not prove that namespaces lower WA.
package qemu
