// Package decode: the decoders checked against QEMU's emulated drive, and the drive families looked at and not built in (moved from docs/nvme-decoders.md).
//
// # Checked against QEMU 10's emulated drive
//
// `TestQEMUFDP` (docs/qemu.md) reads QEMU 10.0.2's FDP and OCP pages through
// a real kernel; the pages are kept in `test/qemu/testdata/qemu10-fdp/` and
// decoded again by `TestQEMUFDPPages`. Field by field, walab's reading and
// QEMU's pages agree: 0x20 (header NUMFDPC @0 0-based, SZE @4; descriptor
// DSZE @0, FDPA @2 with RGIF in bits 3:0 and valid in bit 7, NRG @4, NRUH @8,
// RUNS @16 in bytes, 4-byte handle descriptors from @64), 0x21 (NRUH @0,
// 8-byte descriptors from @8, RUHA 1 host / 2 controller), 0x22 (HBMW @0,
// MBMW @16, MBE @32, bytes), Get Features 0x1D (FDPE in bit 0, configuration
// index in bits 15:8) and 0xC0 (PMUW @0, GUID @496). No decoder needed a
// fix. The FDP Events log (0x23), decoded since with `ParseFDPEvents`, matched
// QEMU's page field for field (count @0, 64-byte events from @64: type 0,
// flags 0x07, PID 1 @2, a timestamp @4 with origin 1, set by the guest
// kernel's Set Features Timestamp, NSID 1 @12, group 0 @32, handle 3 @34), and
// walab's `walab_nvme_fdp_events` equals what fdpctl read.
//
// Where QEMU's emulation is not what the specification (or a real drive)
// gives, so a number walab shows from QEMU must be read with care:
//
//   - **OCP 0xC0 Physical Media Units Written is the host's bytes.** QEMU
//     fills PMUW (and PMUR) from the block layer's byte counts of all
//     namespaces, not from a media model, and sets no other field but the
//     version (5) and the GUID. With SMART's rounded-up host units the
//     `ocp_c0` ratio comes out below 1 (1 MiB written: PMUW 1,048,576 over
//     3 x 512,000 = 0.68).
//   - **Endurance Group log (0x09) units.** QEMU computes Data and Media Units
//     Written as `DIV_ROUND_UP(bytes / 10^9, 10^9)`: 0 below a gigabyte, 1
//     above, where the specification counts gigabytes. Since QEMU 10 puts
//     every controller in a subsystem, a plain controller advertises endurance
//     groups and walab picks `endurance_group`; `TestQEMUNVMeIoctl` sees it
//     report 0 host and media bytes after 8 MiB.
//   - **FDP media bytes are a model of garbage collection, not of NAND.**
//     QEMU adds to MBMW, besides every host byte, the remaining capacity of a
//     reclaim unit that is ended early (I/O Management Send, or a placement
//     handle moved to a new unit), and never counts erases (MBE stays 0).
//     A write that fills a unit to the last block is treated as an early end
//     too: the unit's remaining capacity before that write is added again, and
//     a "reclaim unit not fully written" event is logged if enabled (seen in a
//     scratch run: [bench/RESULTS-qemu.md](../bench/RESULTS-qemu.md));
//     `TestQEMUFDP` keeps its writes below a unit's size so its expected bytes
//     do not depend on it.
//   - **RGIF** is the bit length of the group count (2 groups: 2 bits, where 1
//     would do); a larger RGIF is legal, but QEMU then keeps only 15 - RGIF
//     bits of the placement handle when it splits a PID (it builds PIDs with
//     16 - RGIF): harmless below 2^13 handles.
//   - **MAXPIDS** in 0x20 is 127, QEMU's 128 written 0-based.
//   - **Get Features 0x1D** takes the endurance group from CDW11 bits 7:0 (the
//     specification: bits 15:0); walab's group 1 reads the same either way.
//   - **FDP events** are logged only for event types the host enabled with Set
//     Features 0x1E on a placement handle; out of reset none are, so a drive
//     never configured shows an empty 0x23.
//   - With FDP off (read from its source), 0x21-0x23 answer status 0x29 (FDP
//     Disabled; `TestQEMUNVMeIoctl` sees it for 0x22) while 0x20 still returns
//     one configuration, its valid bit clear (1 group, 1 handle, 96 MiB units).
//     walab reads the FDP pages only when CTRATT bit 19 is set.
//
// # Drive families looked at and not built in
//
// nvme-cli's vendor plugins were read for every family that reports NAND (media) writes. These
// have no built-in layout, for the reasons given; a user who knows the answer writes the layout in
// YAML (below), and `walab_nvme_info{unit_confirmed="false"}` says so if they do not set
// `unit_confirmed`.
//
//	| family | what the plugin reads | why not built in |
//	|---|---|---|
//	| Micron (PCI VID 0x1344) | "NAND Writes (Bytes Written)" as the u64 at dwords 44-45 (offset 176) of log 0xD0 on some models; "Physical Media Units Written - TLC/SLC" in 0xC0 or 0xFB on others; "Total TLC/SLC NAND Write Count" in 0xC6 on others | the plugin picks the page by PCI *device* ID (`GetDriveModel`), which Identify does not carry, and 0xD0 means something else on other models (the M6001 reads its extended SMART there). Micron's OCP drives are read by `ocp_c0` |
//	| Seagate (0x1BB1) | log 0xC4: 42 attributes of 12 bytes after a 2-byte version, "Physical (NAND) bytes written" split into LSB (id 233) and MSB (id 234) attributes whose raw field depends on the version | needs keyed items at a base offset of 2 and a counter split over two items; Seagate's OCP page (0xC0) is read by `ocp_c0` |
//	| Inspur / IEIT (0x1BD4) | log 0xC0, 2048 B: `nand_bytes_written[4]` (u64 each, offsets 336-367) printed as "GB" | which of the four entries make the drive's total (one per back-end part, or only the first) and whether "GB" is 10^9 or 2^30 bytes is not stated; with SMART as the host side, either doubt changes WA |
//	| InnoGrit (0x1DBE) | `nand_page_write_cnt`, u64 at offset 308 of the SMART log (its vendor area at 232, +76) | counted in NAND pages of a size no public source gives |
//	| DERA (0x1D78), Toshiba / KIOXIA (0x1179, 0x1E0F) | status and telemetry pages only | no NAND write counter |
package decode
