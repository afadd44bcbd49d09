package qemu

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/decode"
)

// NamedCommand is one admin command the guest sends.
type NamedCommand struct {
	Label string
	Cmd   admin.Command
}

// Commands is what the guest sends to each controller, in order. The host
// replays the same list against the capture, so live and replay answers can
// be compared command by command.
func Commands() []NamedCommand {
	logPage := func(p admin.LogPage) admin.Command {
		c, err := admin.GetLogPage(p)
		if err != nil {
			panic(err) // constant arguments: a programming error
		}
		return c
	}
	dr, err := admin.DirectiveReceive(1, 0, 1, 0, 4096)
	if err != nil {
		panic(err)
	}
	return []NamedCommand{
		{"identify controller", admin.Identify(admin.CNSController, 0)},
		{"identify namespace 1", admin.Identify(admin.CNSNamespace, 1)},
		{"SMART log", logPage(admin.LogPage{LID: 0x02, NSID: admin.NSIDAll, Len: 512, RAE: true})},
		// Pages a plain QEMU controller lacks or has depending on version and
		// options (nvme-layouts.md section 10; docs/qemu.md).
		{"OCP SMART extended (0xC0)", logPage(admin.LogPage{LID: 0xC0, NSID: admin.NSIDAll, Len: 512})},
		{"endurance group (0x09)", logPage(admin.LogPage{LID: 0x09, LSI: 1, NSID: admin.NSIDAll, Len: 512})},
		{"FDP statistics (0x22)", logPage(admin.LogPage{LID: 0x22, LSI: 1, NSID: admin.NSIDAll, Len: 64})},
		{"directive receive identify", dr},
		// Format NVM: a write-class opcode the guard must stop in-process.
		{"format NVM (must be refused)", admin.Command{Opcode: 0x80, NSID: 1}},
	}
}

// Result is one command's outcome.
type Result struct {
	Name        string `json:"name"`
	Opcode      uint8  `json:"opcode"`
	LogID       uint8  `json:"log_id,omitempty"`
	OK          bool   `json:"ok"`
	Status      uint16 `json:"status,omitempty"` // NVMe status when the controller refused
	Unsupported bool   `json:"unsupported,omitempty"`
	Refused     bool   `json:"refused,omitempty"` // stopped by the guard before any backend
	Error       string `json:"error,omitempty"`
}

// Sent is one row of admin.Device's own command accounting.
type Sent struct {
	Opcode uint8  `json:"opcode"`
	LogID  uint8  `json:"log_id"`
	Count  uint64 `json:"count"`
}

// Report is the guest's results.json for one controller.
type Report struct {
	Device  string            `json:"device"`
	Results []Result          `json:"results"`
	Values  map[string]string `json:"values"` // decoded from the live answers
	Sent    []Sent            `json:"sent"`
	Refused uint64            `json:"refused"`
}

// Exercise sends Commands to d, hands each success to record (may be nil),
// and decodes identify and SMART into Values. Live (guest) and replay
// (host) runs go through this same function.
func Exercise(ctx context.Context, d *admin.Device, record func(admin.Command, admin.Result)) (Report, error) {
	rep := Report{Device: d.Name()}
	answers := map[string][]byte{}
	for _, nc := range Commands() {
		r := Result{Name: nc.Label, Opcode: nc.Cmd.Opcode}
		if lid, ok := nc.Cmd.LogID(); ok {
			r.LogID = lid
		}
		res, err := d.Submit(ctx, nc.Cmd)
		var se *admin.StatusError
		var re *admin.RefusedError
		switch {
		case err == nil:
			r.OK = true
			answers[nc.Label] = res.Data
			if record != nil {
				record(nc.Cmd, res)
			}
		case errors.As(err, &re):
			r.Refused, r.Error = true, err.Error()
		case errors.As(err, &se):
			r.Status, r.Unsupported, r.Error = se.Status, admin.IsUnsupported(err), err.Error()
		default:
			r.Unsupported, r.Error = admin.IsUnsupported(err), err.Error()
		}
		rep.Results = append(rep.Results, r)
	}
	st := d.Stats()
	for k, n := range st.Sent {
		rep.Sent = append(rep.Sent, Sent{Opcode: k.Opcode, LogID: k.LogID, Count: n})
	}
	rep.Refused = st.Refused
	v, err := Values(answers["identify controller"], answers["identify namespace 1"], answers["SMART log"])
	rep.Values = v
	return rep, err
}

// Values are the numbers the exporter would publish from these pages, as
// strings so 128-bit counters stay exact.
func Values(idCtrl, idNS, smart []byte) (map[string]string, error) {
	id, err := decode.ParseIDController(idCtrl)
	if err != nil {
		return nil, err
	}
	ns, err := decode.ParseIDNamespace(idNS)
	if err != nil {
		return nil, err
	}
	sm, err := decode.ParseSMART(smart)
	if err != nil {
		return nil, err
	}
	host, _ := sm.HostWrittenBytes()
	return map[string]string{
		"serial":                  id.Serial,
		"model":                   id.Model,
		"firmware":                id.Firmware,
		"vid":                     fmt.Sprintf("0x%04x", id.VID),
		"oacs":                    fmt.Sprintf("0x%04x", id.OACS),
		"ctratt":                  fmt.Sprintf("0x%08x", id.CTRATT),
		"tnvmcap_bytes":           id.TNVMCAP.String(),
		"ns1_size_blocks":         fmt.Sprint(ns.NSZE),
		"data_units_written":      sm.DataUnitsWritten.String(),
		"data_units_read":         sm.DataUnitsRead.String(),
		"host_written_bytes":      host.String(),
		"host_write_commands":     sm.HostWriteCommands.String(),
		"host_read_commands":      sm.HostReadCommands.String(),
		"temperature_kelvin":      strconv.Itoa(int(sm.TemperatureKelvin)),
		"available_spare_percent": strconv.Itoa(int(sm.AvailableSpare)),
		"percentage_used":         strconv.Itoa(int(sm.PercentageUsed)),
		"critical_warning":        strconv.Itoa(int(sm.CriticalWarning)),
		"media_errors":            sm.MediaErrors.String(),
	}, nil
}
