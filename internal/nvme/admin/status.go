package admin

import (
	"errors"
	"fmt"
)

// Status code types and the codes walab reacts to (NVMe base spec, figure "Status Code").
const (
	SCTGeneric         = 0
	SCTCommandSpecific = 1

	SCInvalidLogPage = 0x09 // command specific, Get Log Page

	SCInvalidOpcode = 0x01
	SCInvalidField  = 0x02
	SCInvalidNS     = 0x0B

	statusDNR  = 0x4000
	statusMore = 0x2000
)

// StatusError is a command the controller completed with a non-zero status.
type StatusError struct {
	Cmd    Command
	Status uint16 // CQE status field >> 1, as the Linux ioctl returns it
}

// SCT is the status code type (bits 10:8).
func (e *StatusError) SCT() uint8 { return uint8(e.Status>>8) & 0x7 }

// SC is the status code (bits 7:0).
func (e *StatusError) SC() uint8 { return uint8(e.Status) }

// DNR reports the Do Not Retry bit.
func (e *StatusError) DNR() bool { return e.Status&statusDNR != 0 }

// Unsupported reports whether the status means "this controller does not
// implement that": for probing, an absent feature rather than a failure.
// Invalid Log Page (command specific 0x09) is how many drives answer a log
// they lack; QEMU and others use Invalid Field instead.
func (e *StatusError) Unsupported() bool {
	switch e.SCT() {
	case SCTGeneric:
		return e.SC() == SCInvalidOpcode || e.SC() == SCInvalidField
	case SCTCommandSpecific:
		return e.Cmd.Opcode == OpGetLogPage && e.SC() == SCInvalidLogPage
	}
	return false
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s: NVMe status 0x%04x (sct=%d sc=0x%02x%s): %s", e.Cmd, e.Status, e.SCT(), e.SC(), dnrText(e.DNR()), statusText(e.SCT(), e.SC()))
}

func dnrText(dnr bool) string {
	if dnr {
		return " dnr"
	}
	return ""
}

func statusText(sct, sc uint8) string {
	if sct != SCTGeneric {
		return "command specific or media error"
	}
	switch sc {
	case SCInvalidOpcode:
		return "invalid command opcode"
	case SCInvalidField:
		return "invalid field in command"
	case SCInvalidNS:
		return "invalid namespace or format"
	case 0x04:
		return "data transfer error"
	case 0x06:
		return "internal error"
	case 0x07:
		return "command abort requested"
	}
	return "generic command status"
}

// NewStatusError builds the error a backend returns for a non-zero status.
func NewStatusError(cmd Command, status uint16) error { return &StatusError{Cmd: cmd, Status: status} }

// IsUnsupported reports whether err says the controller lacks the command,
// log page or feature (a replay directory without the file answers the same).
func IsUnsupported(err error) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Unsupported()
}

// Unsupported is the status a backend returns for a command it does not implement.
func Unsupported(cmd Command) error {
	if cmd.Opcode == OpGetLogPage || cmd.Opcode == OpGetFeatures {
		return NewStatusError(cmd, statusDNR|SCInvalidField)
	}
	return NewStatusError(cmd, statusDNR|SCInvalidOpcode)
}
