package admin

import "fmt"

// readOnly is the complete list of admin opcodes that may reach a backend.
// It is the one place that decides: Device.Submit consults nothing else.
var readOnly = [256]bool{
	OpGetLogPage:       true,
	OpIdentify:         true,
	OpGetFeatures:      true,
	OpDirectiveReceive: true,
}

// Allowed reports whether an admin opcode only reads from the controller.
func Allowed(opcode uint8) bool { return readOnly[opcode] }

// RefusedError is returned for an opcode outside the read-only allowlist.
type RefusedError struct{ Opcode uint8 }

func (e *RefusedError) Error() string {
	return fmt.Sprintf("admin opcode 0x%02x refused: walab only sends Identify, Get Log Page, Get Features and Directive Receive", e.Opcode)
}
