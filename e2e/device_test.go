package e2e

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/walab/walab/internal/nvme/replay/fixture"
)

// device is the replayed NVMe controller: an FDP drive whose host and media
// byte counters the test advances. Each step rewrites the replay folder
// file by file through rename, so the exporter never reads a torn page.
type device struct {
	mu      sync.Mutex
	drive   fixture.Drive
	dir     string // replay/<name>
	staging string
	// nandPerHost is the WA the next steps write with.
	nandPerHost float64
}

const hostStep = 512 << 20 // host bytes per step

func newDevice(t *testing.T, root, name string, wa float64) *device {
	t.Helper()
	// Staging lives beside the replay root: every folder inside it is a controller.
	d := &device{drive: fixture.FDPDrive(), dir: filepath.Join(root, name), staging: root + "." + name + ".staging", nandPerHost: wa}
	if err := os.MkdirAll(d.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := d.flush(); err != nil {
		t.Fatal(err)
	}
	return d
}

func (d *device) setWA(wa float64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.nandPerHost = wa
}

// step writes one more hostStep of host bytes and WA x that of NAND bytes.
func (d *device) step() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.drive.FDP.HBMW += hostStep
	d.drive.FDP.MBMW += uint64(float64(hostStep) * d.nandPerHost)
	d.drive.SMART.DataUnitsWritten += hostStep / 512000
	return d.flush()
}

func (d *device) counters() (host, media uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.drive.FDP.HBMW, d.drive.FDP.MBMW
}

func (d *device) flush() error {
	if err := os.RemoveAll(d.staging); err != nil {
		return err
	}
	if err := os.MkdirAll(d.staging, 0o755); err != nil {
		return err
	}
	if err := d.drive.Write(d.staging); err != nil {
		return err
	}
	ents, err := os.ReadDir(d.staging)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if err := os.Rename(filepath.Join(d.staging, e.Name()), filepath.Join(d.dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
