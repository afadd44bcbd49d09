// Command guest runs inside the QEMU test's virtual machine. For each named
// controller it sends qemu.Commands through the real Linux
// NVME_IOCTL_ADMIN_CMD path (admin.OpenIoctl), records the answers in the
// replay format (one folder per controller, as a capture), and writes what
// each command did to <out>/<controller>/results.json.
//
//	guest -out /out/1 nvme0 nvme1
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
	"github.com/walab/walab/internal/nvme/replay"
	"github.com/walab/walab/test/qemu"
)

func main() {
	out := flag.String("out", "", "capture directory (one folder per controller is written under it)")
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: guest -out DIR nvme0 [nvme1...]")
		os.Exit(2)
	}
	failed := false
	for _, name := range flag.Args() {
		if err := capture(name, filepath.Join(*out, name)); err != nil {
			fmt.Fprintf(os.Stderr, "guest: %s: %v\n", name, err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

func capture(name, dir string) error {
	d, err := admin.OpenIoctl(name, "/dev/"+name)
	if err != nil {
		return err
	}
	defer d.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	rec := replay.NewRecorder()
	rep, err := qemu.Exercise(ctx, d, rec.Record)
	if err != nil {
		return err
	}
	if rep.Values == nil {
		return errors.New("no identify or SMART answer")
	}
	rec.SetText(replay.FileSerial, rep.Values["serial"])
	rec.SetText(replay.FileModel, rep.Values["model"])
	rec.SetText(replay.FileFirmware, rep.Values["firmware"])
	if err := rec.WriteDir(dir); err != nil {
		return err
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	fmt.Printf("guest: %s serial %q model %q vid %s\n", name, rep.Values["serial"], rep.Values["model"], rep.Values["vid"])
	return os.WriteFile(filepath.Join(dir, "results.json"), append(b, '\n'), 0o644)
}
