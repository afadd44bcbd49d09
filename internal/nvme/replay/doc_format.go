// Package replay: the replay directory's format (moved from docs/exporter.md).
//
// # Replay format
//
// Each controller is one folder, for example `DIR/nvme0/`:
//
//	| file | content |
//	|---|---|
//	| `id-ctrl.bin` | Identify Controller, 4096 bytes |
//	| `id-ns-<nsid>.bin` | Identify Namespace; nsid in decimal (`id-ns-1.bin`) |
//	| `log-<lid>.bin` | the whole log page; lid is two lowercase hex digits (`log-02.bin`, `log-c0.bin`) |
//	| `log-<lid>-lsi<n>.bin` | log page with a log specific identifier, such as the endurance group (`log-09-lsi1.bin`, `log-22-lsi1.bin`) |
//	| `log-<lid>-lsi<n>-lsp<p>.bin` | the same read with a non-zero log specific parameter, which selects another page: `log-23-lsi1-lsp1.bin` holds the FDP host events, `log-23-lsi1.bin` the controller events |
//	| `dir-<dtype>-<doper>.bin` | Directive Receive data, two hex digits each (`dir-00-01.bin`, `dir-01-01.bin`) |
//	| `feat-<fid>.bin` | Get Features: 4 bytes little-endian completion dword 0, then any data (`feat-1d.bin`) |
//	| `model`, `serial`, `firmware_rev` | optional text, standing in for sysfs |
//
// Rules:
//   - **A missing file** answers like a controller without that command: Invalid
//     Field (log pages and features) or Invalid Opcode (others), with DNR set. If
//     the **whole folder** is missing, every command fails with a non-status error
//     ("controller folder is gone"). The device goes down and is not mistaken for
//     a drive without that page.
//   - **Offsets.** A read at an offset is served from the whole file.
//   - **Reads past the end of a file return zeros**, as a device pads a transfer
//     longer than its page.
//   - **Files are re-read on every command.** A test advances counters by
//     rewriting a file, and the next poll after the cache max age sees the new
//     value.
//   - **Fields the format does not key on are ignored**: the NSID of a log page,
//     LSP and the UUID index.
//
// An example fleet with one controller per source is committed in
// `exporter/testdata/replay` (regenerate it with
// `go test ./exporter -run ExampleReplay -update`). To serve it:
//
//	go run ./exporter --nvme.replay=exporter/testdata/replay --web.listen-address=127.0.0.1:10131
package replay
