// Package replay is an admin.Backend that answers from a directory of
// captured controller responses, so every decoder and the whole exporter run
// in tests and on machines without an NVMe drive. Recorder writes the same
// format (the exporter's `capture` subcommand).
//
// One folder per controller, e.g. DIR/nvme0/:
//
//	id-ctrl.bin          Identify Controller (4096 B)
//	id-ns-<nsid>.bin     Identify Namespace, nsid in decimal
//	id-uuid.bin          Identify UUID List (CNS 0x17), when the controller has one
//	log-<lid>.bin        whole log page, lid as two lowercase hex digits
//	log-02-ns<nsid>.bin  the SMART log of one namespace (NSID neither 0 nor all)
//	log-<lid>-lsi<n>.bin log page with a log specific identifier (e.g. log-09-lsi1.bin)
//	log-<lid>-lsi<n>-lsp<p>.bin the same with a non-zero log specific parameter
//	                     (e.g. log-23-lsi1-lsp1.bin: FDP host events; log-23-lsi1.bin: controller events)
//	dir-<dtype>-<doper>.bin Directive Receive data, two hex digits each
//	feat-<fid>.bin       Get Features: 4 bytes LE completion dword 0, then data
//	model, serial, firmware_rev  optional text (what sysfs would say)
package replay

import (
	"fmt"

	"github.com/walab/walab/internal/nvme/admin"
)

// logSMART is the SMART / Health Information log, the one page keyed by NSID.
const logSMART = 0x02

// Text files a capture may hold next to the binary responses.
const (
	FileModel    = "model"
	FileSerial   = "serial"
	FileFirmware = "firmware_rev"
)

// FileName maps a command to the file that answers it. Fields the format
// does not key on (UUID index, offset, the NSID of any log page but SMART)
// are ignored: a capture holds one version of each page. The SMART log of
// one namespace is a page of its own (log-02-ns<nsid>.bin), so that a
// capture of both keeps the controller's log-02.bin. A non-zero LSP is part of the
// name, because it selects a different page (0x23: host or controller
// events). ok is false for commands the
// format has no file for.
func FileName(cmd admin.Command) (name string, ok bool) {
	switch cmd.Opcode {
	case admin.OpIdentify:
		switch uint8(cmd.CDW10) {
		case admin.CNSController:
			return "id-ctrl.bin", true
		case admin.CNSNamespace:
			return fmt.Sprintf("id-ns-%d.bin", cmd.NSID), true
		case admin.CNSUUIDList:
			return "id-uuid.bin", true
		}
		return "", false
	case admin.OpGetLogPage:
		name := fmt.Sprintf("log-%02x", uint8(cmd.CDW10))
		if uint8(cmd.CDW10) == logSMART && cmd.NSID != 0 && cmd.NSID != admin.NSIDAll {
			name += fmt.Sprintf("-ns%d", cmd.NSID)
		}
		if lsi := cmd.LSI(); lsi != 0 {
			name += fmt.Sprintf("-lsi%d", lsi)
		}
		if lsp := cmd.LSP(); lsp != 0 {
			name += fmt.Sprintf("-lsp%d", lsp)
		}
		return name + ".bin", true
	case admin.OpDirectiveReceive:
		return fmt.Sprintf("dir-%02x-%02x.bin", uint8(cmd.CDW11>>8), uint8(cmd.CDW11)), true
	case admin.OpGetFeatures:
		return fmt.Sprintf("feat-%02x.bin", uint8(cmd.CDW10)), true
	}
	return "", false
}
