// Package decode turns NVMe admin-command data into typed Go values: pure
// functions from bytes to structs, with no I/O, so every parser can be tested
// and fuzzed on buffers built from the specification.
//
// Standard structures: Identify Controller and Namespace, the SMART /
// Health log (0x02), the Endurance Group log (0x09), the FDP logs (0x20,
// 0x21, 0x22), the Directive Identify and Streams parameters. Vendor
// structures: the OCP SMART extended log (0xC0, recognised by its GUID,
// never by its log ID alone) and declarative [Layout]s for vendor pages,
// built-in ([BuiltinLayouts]) or written by users in the exporter's YAML.
//
// Lifetime counters are 128-bit on the wire and kept exact as [U128].
// Every parser checks lengths before reading: a short or inconsistent buffer
// is an error naming the structure and the byte counts, never a panic.
package decode
