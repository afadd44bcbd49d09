// Package probe: how a drive is read, command by command (moved from docs/exporter.md).
//
// # How a drive is read
//
// For each controller, the exporter does two things:
//
//  1. **Probe, once.** It sends Identify Controller and an Identify Namespace for
//     each namespace. Then it picks the NAND source and remembers the choice.
//     Candidates are tried in this order:
//
//     | source | needs | host bytes | NAND bytes |
//     |---|---|---|---|
//     | `fdp` | Identify CTRATT bit 19, an endurance group (namespace ENDGID, else 1), and FDP enabled (Get Features 0x1D bit 0; a controller that rejects that feature is judged by the log alone) | FDP statistics log 0x22, HBMW | 0x22, MBMW |
//     | `ocp_c0` | log 0xC0 whose GUID at byte 496 is the OCP GUID | SMART | 0xC0, Physical Media Units Written |
//     | vendor layouts | the layout's `match` fits (VID, model regex); configured layouts first, then the built-in ones (docs/nvme-decoders.md lists each drive family with its page, fields, unit and match; seed 000's and seed 001's are among them, seed 001's PBlaze4 as `memblaze_ca_old`, the older Memblaze format, whose unit is unconfirmed) | the layout's host field, else SMART | the layout's media field, or host + GC |
//     | `endurance_group` | CTRATT bit 4 and an endurance group | Endurance Group log 0x09, Data Units Written × 1e9 | 0x09, Media Units Written × 1e9 |
//     | `none` | nothing else fits | SMART | — (no WA) |
//
//     The write amplification is NAND ÷ host. When a source has both counters,
//     both come from that source. Otherwise the host side is SMART Data Units
//     Written × 512000.
//
//     How failures during the probe are treated:
//     - A candidate page that the controller answers with **any NVMe status**
//     counts as absent. So does a page that fails its check (wrong GUID, short
//     page). Pages found absent are not sent again.
//     - An error that is **not** a status stops the probe. Examples are EACCES
//     and I/O errors. The probe is retried on the next read, so a passing
//     permission problem cannot leave the exporter on a worse source.
//
//  2. **Poll, at most once per `--nvme.cache-max-age`.** A poll reads SMART (0x02)
//     and the chosen source's page:
//     - Concurrent scrapes and the WA sampler share one read in flight. A
//     hundred simultaneous scrapes cost one read per device.
//     - Failures are cached for the same max age, so a broken device is not
//     hammered.
//
// How the log reads are sent:
//   - Every Get Log Page sets **RAE=1**, so the exporter never consumes
//     asynchronous events that the driver or an operator is waiting for.
//   - When the controller supports extended data (Identify LPA bit 2), pages
//     longer than 4 KiB are read in 4 KiB chunks at increasing offsets
//     (LPOL/LPOU). Otherwise each page is read in one command.
//   - Errors are typed. A `probe.ReadError` names the device and what was being
//     read. It wraps `admin.StatusError`, which names the command and the NVMe
//     status.
//
// All 128-bit counters stay exact (`decode.U128`) until exposition, where they
// are turned into float64.
//
// A device that fails to read gets `walab_nvme_up 0` and one log line when the
// failure starts or changes. Its `walab_nvme_info` (identity) is still
// exported. The other devices and the rest of the scrape are not affected.
package probe
