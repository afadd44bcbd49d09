// Package decode: each source of write counters, field by field (moved from docs/nvme-decoders.md, whose table lists the sources).
//
// # Sources of write counters
//
// Other decoded structures, used for identity and for the Streams/FDP collectors:
// Identify Controller (CNS 0x01: VID, serial, model, firmware, OACS, LPA,
// CTRATT, TNVMCAP, NN, ENDGIDMAX, MDTS), Identify Namespace (CNS 0x00: NSZE,
// NCAP, NUSE, NVMCAP, LBA size from FLBAS, ENDGID), the FDP Configurations log
// (0x20), the Reclaim Unit Handle Usage log (0x21), the FDP Events log (0x23),
// Directive Identify (DTYPE 0 DOPER 1), the Streams parameters and status
// (DTYPE 1 DOPER 1 and 2), and the Identify UUID List (CNS 0x17).
// `UUIDList.Index(decode.OCPUUID)` gives the UUID index to read the OCP 0xC0
// page with (0 when the drive has no UUID list).
//
// **FDP Events (0x23)** (`decode.ParseFDPEvents`, `AppendFDPEvents`): LSI =
// endurance group; LSP bit 0 selects the host events (1) or the controller
// events (0), two separate pages. Header: event count LE32 @0, 64 bytes in all.
// Then 64-byte descriptors: type @0, FDPEF flags @1 (bit 0 PID valid, bit 1
// NSID valid, bit 2 location valid), PID LE16 @2, timestamp @4 (the NVMe
// Timestamp structure: milliseconds in 48 bits, attributes @10 with the origin
// in bits 3:1; origin 1, set by the host, makes it Unix time), NSID LE32 @12,
// 16 type-specific bytes @16 (media reallocated: NLBAM @2, LBA @4), reclaim
// group LE16 @32, reclaim unit handle @34, vendor bytes @40. The count comes
// from the device: a count beyond the bytes present is an error, and the
// probe reads 4 KiB (63 events) first and the whole log only for a larger
// count, at most 1023 events. Type names (the `type` label of
// `walab_nvme_fdp_events`): 0x00 `ru_not_fully_written`, 0x01
// `ru_time_limit_exceeded`, 0x02 `ctrl_reset_modified_ruh`, 0x03
// `invalid_pid` (host events); 0x80 `media_reallocated`, 0x81
// `implicitly_modified_ruh` (controller events); every reserved or
// vendor-specific type is `other`. The probe reads both pages only while FDP
// is enabled (Get Features 0x1D), on every placement read (cached like the
// other pages); a capture keeps them as `log-23-lsi<eg>-lsp1.bin` (host) and
// `log-23-lsi<eg>.bin` (controller).
//
// Drive families looked at and not built in: `go doc ./internal/nvme/decode`.
//
// # Where each unconfirmed unit comes from
//
// The units column of docs/nvme-decoders.md's table, with its sources:
//
//   - intel_ca: 32 MiB per count: **unconfirmed** (Intel's reported unit, not
//     confirmed from a primary source)
//   - memblaze_ca: 32 MiB per count: **unconfirmed** (one source: nvme-cli's
//     `plugins/memblaze/memblaze-utils.h`, "unit is 32MiB"); WA = 0xF4 / 0xF5 does
//     not depend on it
//   - memblaze_ca_old: 1 GiB per count: **unconfirmed**. nvme-cli prints item 0 as
//     "GB" and item 8 as "GiB"; seed 001's table calls both "GB" and divides one
//     by the other. walab takes both as GiB; if they really differ, WA is off by
//     7.4 %. No capture from the drive exists yet
//   - ymtc_ca: 32 MiB per count: **unconfirmed** (nvme-cli's
//     `plugins/ymtc/ymtc-utils.h` says "unit is 32MiB", its `ymtc-nvme.c` prints the same values as
//     "sectors"); WA does not depend on it
//   - shannon_ca: 512 B per count: **unconfirmed** (one source,
//     `plugins/shannon/shannon-nvme.c`, prints "sectors" without a size); WA does
//     not depend on it
//   - scaleflux_ca: 512 B per count: **unconfirmed** (one source,
//     `plugins/scaleflux/sfx-nvme.c`, prints "sectors"); WA does not depend on it
//   - dapustor_ca: 512 B per count: **unconfirmed** (one source,
//     `plugins/dapustor/dapustor-nvme.c`, prints "sectors"); WA does not depend on
//     it
//   - ssstc_ca: 512 B per count: **unconfirmed** (one source,
//     `plugins/ssstc/ssstc-nvme.c`, prints "sectors"); WA does not depend on it
//   - wdc_c0_ext: bytes: **unconfirmed** (`plugins/wdc/wdc-nvme.c` prints both as
//     "(Bytes)", but its `vs-drive-info`-style WAF divides them by SMART Data
//     Units Written, as if both were in 512,000-byte units: one source that
//     disagrees with itself). The host side is SMART's, so WA **does** depend on
//     this unit
//   - seed000_c0: 4 KiB per count: **unconfirmed** (one source: what seed 000's
//     `calculate_wa.sh` says)
//
// # Notes on units
//
//   - The **write-amplification ratio does not depend on the unit** when the host
//     and NAND counters come from the same page in the same unit (intel_ca,
//     memblaze_ca, the positional 0xCA layouts, seed000_c0, FDP, Endurance
//     Group). So the unconfirmed 32 MiB unit of 0xCA changes the byte counters
//     walab exports, but not the WA it computes. `wdc_c0_ext` is the exception
//     among the built-in layouts: its host side is SMART's, so its unconfirmed
//     unit does change WA. `memblaze_ca_old` reads both counters from one page,
//     but nvme-cli names their units differently ("GB" and "GiB"): WA holds only
//     if they share one.
//   - The **OCP 0xC0** page has only a media counter. Its host side is SMART Data
//     Units Written × 512,000. SMART rounds up to whole 512,000-byte units, so
//     over short windows the OCP ratio is noisy.
//   - **Endurance Group** units are 1 GB. That is far too coarse for hourly
//     windows, so use this source only for lifetime WA or long windows. QEMU 8.x
//     and later fills the log incorrectly: both counters are 0 below 1 GB
//     written and 1 above (read from its source, and seen by
//     `TestQEMUNVMeIoctl` on QEMU 10). Do not assert a WA value from an
//     emulated drive's Endurance Group log.
//
// Checked against QEMU 10's emulated drive: `go doc ./internal/nvme/decode`.
package decode
