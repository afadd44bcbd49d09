// Command guest runs inside the QEMU test's virtual machine. It talks to the
// emulated controller through the real Linux NVME_IOCTL_ADMIN_CMD path
// (internal/nvme/admin.OpenIoctl), records every answer in the replay
// format (internal/nvme/replay), and writes what each command did to
// results.json, so the host can check the ioctl path end to end.
//
//	guest -device /dev/nvme0 -name nvme0 -out /out/1
//
// It is built static (CGO_ENABLED=0) and copied into the test's initramfs.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/decode"
	"github.com/walab/walab/internal/nvme/replay"
)

// Result is one command's outcome as the host test reads it.
type Result struct {
	Name        string `json:"name"`
	Opcode      uint8  `json:"opcode"`
	LogID       uint8  `json:"log_id,omitempty"`
	OK          bool   `json:"ok"`
	Status      uint16 `json:"status,omitempty"` // NVMe status when the controller refused
	Unsupported bool   `json:"unsupported,omitempty"`
	Refused     bool   `json:"refused,omitempty"` // stopped by the guard before the kernel
	Error       string `json:"error,omitempty"`
}

// Sent is one row of the device's own command accounting.
type Sent struct {
	Opcode uint8  `json:"opcode"`
	LogID  uint8  `json:"log_id"`
	Count  uint64 `json:"count"`
}

// Report is results.json.
type Report struct {
	Serial   string   `json:"serial"`
	Model    string   `json:"model"`
	Firmware string   `json:"firmware"`
	VID      uint16   `json:"vid"`
	Results  []Result `json:"results"`
	Sent     []Sent   `json:"sent"`
	Refused  uint64   `json:"refused"`
}

func main() {
	dev := flag.String("device", "/dev/nvme0", "controller character device")
	name := flag.String("name", "nvme0", "controller name")
	out := flag.String("out", "", "capture directory to write")
	flag.Parse()
	if err := run(*dev, *name, *out); err != nil {
		fmt.Fprintln(os.Stderr, "guest:", err)
		os.Exit(1)
	}
}

func run(path, name, out string) error {
	if out == "" {
		return errors.New("-out is required")
	}
	d, err := admin.OpenIoctl(name, path)
	if err != nil {
		return err
	}
	defer d.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	rec := replay.NewRecorder()
	var rep Report
	send := func(label string, cmd admin.Command) []byte {
		r := Result{Name: label, Opcode: cmd.Opcode}
		if lid, ok := cmd.LogID(); ok {
			r.LogID = lid
		}
		res, err := d.Submit(ctx, cmd)
		var se *admin.StatusError
		var re *admin.RefusedError
		switch {
		case err == nil:
			r.OK = true
			rec.Record(cmd, res)
		case errors.As(err, &se):
			r.Status, r.Unsupported, r.Error = se.Status, admin.IsUnsupported(err), err.Error()
		case errors.As(err, &re):
			r.Refused, r.Error = true, err.Error()
		default:
			r.Error = err.Error()
		}
		rep.Results = append(rep.Results, r)
		return res.Data
	}
	logPage := func(p admin.LogPage) admin.Command {
		c, err := admin.GetLogPage(p)
		if err != nil {
			panic(err) // constant arguments: a bug, not input
		}
		return c
	}

	if b := send("identify controller", admin.Identify(admin.CNSController, 0)); b != nil {
		id, err := decode.ParseIDController(b)
		if err != nil {
			return err
		}
		rep.Serial, rep.Model, rep.Firmware, rep.VID = id.Serial, id.Model, id.Firmware, id.VID
		rec.SetText(replay.FileSerial, id.Serial)
		rec.SetText(replay.FileModel, id.Model)
		rec.SetText(replay.FileFirmware, id.Firmware)
	}
	send("identify namespace 1", admin.Identify(admin.CNSNamespace, 1))
	send("SMART log", logPage(admin.LogPage{LID: 0x02, NSID: admin.NSIDAll, Len: 512, RAE: true}))
	// Pages QEMU 7.2 does not emulate: each must come back unsupported.
	send("OCP SMART extended (0xC0)", logPage(admin.LogPage{LID: 0xC0, NSID: admin.NSIDAll, Len: 512}))
	send("endurance group (0x09)", logPage(admin.LogPage{LID: 0x09, LSI: 1, NSID: admin.NSIDAll, Len: 512}))
	send("FDP statistics (0x22)", logPage(admin.LogPage{LID: 0x22, LSI: 1, NSID: admin.NSIDAll, Len: 64}))
	dr, err := admin.DirectiveReceive(1, 0, 1, 0, 4096)
	if err != nil {
		return err
	}
	send("directive receive identify", dr)
	// A write-class opcode (Format NVM): the guard must stop it in-process.
	send("format NVM (must be refused)", admin.Command{Opcode: 0x80, NSID: 1})

	st := d.Stats()
	for k, n := range st.Sent {
		rep.Sent = append(rep.Sent, Sent{Opcode: k.Opcode, LogID: k.LogID, Count: n})
	}
	rep.Refused = st.Refused
	if err := rec.WriteDir(out); err != nil {
		return err
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	fmt.Printf("guest: %s serial %q model %q vid 0x%04x\n", name, rep.Serial, rep.Model, rep.VID)
	return os.WriteFile(filepath.Join(out, "results.json"), append(b, '\n'), 0o644)
}
