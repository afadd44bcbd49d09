// Package decode: the seed 000 vendor layout, byte for byte (moved from docs/nvme-decoders.md).
//
// # The seed 000 layout, byte for byte
//
// Seed 000's `calculate_wa.sh` runs `nvme get-log -i 0xc0 -n 0xffffffff -l 800`
// and pulls two counters out of the hex dump:
//
//   - `grep "01c0:" | awk '{print $13..$6}'` reads bytes 0x1CB..0x1C4, most
//     significant byte first. That is the little-endian u64 at **0x1C4**: host
//     writes.
//   - `grep "01d0:" | awk '{print $9..$2}'` reads bytes 0x1D7..0x1D0. That is the
//     little-endian u64 at **0x1D0**: GC writes.
//
// Both counters are in 4 KiB units, and NAND = host + GC. The built-in
// `seed000_c0` reads the same 800 bytes the script reads. Those bytes cover both
// fields (which end at 0x1D8) and the OCP GUID position (496..511). walab keeps
// 800 rather than rounding up to 1024 because 800 is the request known to work
// on those drives, and a larger read gains nothing. A test builds a page, prints
// it the way nvme-cli's hex dump does, runs the script's grep/awk logic on the
// dump, and checks that the decoder returns the same numbers × 4096. The layout
// itself comes from the script author and is not confirmed by any vendor
// document, so it applies only to PCI VID 0x19E5 and never to a page that
// carries the OCP GUID.
package decode
