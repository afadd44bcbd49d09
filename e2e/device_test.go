package e2e

import (
	"fmt"
	"net/http"
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
	d := &device{drive: fixture.FDPDrive(), dir: filepath.Join(root, name), staging: filepath.Join(root, "."+name+".staging"), nandPerHost: wa}
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

// fakeExporter stands in for ./exporter while it does not exist yet: it
// serves the device's counters under the metric names of docs/metrics.md.
// The integrator's e2e run uses the real binary.
func fakeExporter(d *device, name string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		host, media := d.counters()
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprintf(w, "# TYPE walab_nvme_up gauge\nwalab_nvme_up{device=%q} 1\n", name)
		fmt.Fprintf(w, "# TYPE walab_nvme_info gauge\nwalab_nvme_info{device=%q,model=\"fake\",serial=\"x\",firmware=\"1\",source=\"fdp\",simulated=\"true\"} 1\n", name)
		fmt.Fprintf(w, "# TYPE walab_nvme_host_written_bytes_total counter\nwalab_nvme_host_written_bytes_total{device=%q,source=\"fdp\"} %d\n", name, host)
		fmt.Fprintf(w, "# TYPE walab_nvme_media_written_bytes_total counter\nwalab_nvme_media_written_bytes_total{device=%q,source=\"fdp\"} %d\n", name, media)
		fmt.Fprintf(w, "# TYPE walab_nvme_temperature_celsius gauge\nwalab_nvme_temperature_celsius{device=%q} 37\n", name)
	})
}
