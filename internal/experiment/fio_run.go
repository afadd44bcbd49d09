package experiment

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/blockdev"
	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/experiment/state"
	"github.com/walab/walab/internal/fio"
	"github.com/walab/walab/internal/rawdev"
)

// fioWatch is what walab holds around one fio run: the devices whose
// counters it reads and their counters at the start.
type fioWatch struct {
	devices []string
	before  map[string]blockdev.Stat
}

// fioBefore refuses a fio run on a raw device that is not marked
// destructive or that something uses (mounted, swap, held), before fio
// starts, and reads the block counters of the devices under fio's files.
func fioBefore(r *plan.Run) (*fioWatch, error) {
	devs, files, err := r.FioTargets()
	if err != nil {
		return nil, err
	}
	if len(devs) > 0 && !r.Destructive {
		return nil, fmt.Errorf("fio would write the raw device %s: the run needs destructive: true", strings.Join(devs, ", "))
	}
	for _, d := range devs {
		if _, err := rawdev.Default.CheckDevice(d); err != nil {
			return nil, fmt.Errorf("fio refused before it started: %w", err)
		}
	}
	w := &fioWatch{}
	for _, p := range files {
		if name, err := blockDeviceOf(p); err == nil && !contains(w.devices, name) {
			w.devices = append(w.devices, name)
		}
	}
	w.before, err = readDiskstats()
	return w, err
}

// blockDeviceOf names the block device that is path, or holds it (the
// file's directory when fio has not created it yet).
func blockDeviceOf(path string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		if err := unix.Stat(filepath.Dir(path), &st); err != nil {
			return "", err
		}
	}
	dev := st.Dev
	if st.Mode&unix.S_IFMT == unix.S_IFBLK {
		dev = st.Rdev
	}
	return blockdev.DeviceOf("/sys", unix.Major(dev), unix.Minor(dev))
}

// readBounded reads at most n bytes of a regular file (fio.Parse refuses
// a report that fills them).
func readBounded(path string, n int64) ([]byte, error) {
	fh, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return io.ReadAll(io.LimitReader(fh, n))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func readDiskstats() (map[string]blockdev.Stat, error) {
	b, err := os.ReadFile("/proc/diskstats")
	if err != nil {
		return nil, err
	}
	stats, _ := blockdev.ParseDiskstats(b) // a bad line costs that device only
	out := make(map[string]blockdev.Stat, len(stats))
	for _, s := range stats {
		out[s.Name] = s
	}
	return out, nil
}

// after reads fio's report and the devices' counters. A report that is
// missing, unparsable or names a job error fails the run: nothing of it
// is counted.
func (w *fioWatch) after(runDir, relDir string, start, end time.Time) (*state.FioRecord, error) {
	b, err := readBounded(filepath.Join(runDir, plan.FioOutput), fio.MaxBytes+1)
	if err != nil {
		return nil, fmt.Errorf("fio wrote no report: %w", err)
	}
	out, err := fio.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(runDir, plan.FioOutput), err)
	}
	if out.Interrupted != "" {
		return nil, fmt.Errorf("fio was stopped by %s: its figures are of a shortened run", out.Interrupted)
	}
	rec := &state.FioRecord{Output: filepath.Join(relDir, plan.FioOutput), Version: out.Version, Total: out.Total(), Jobs: out.Jobs, Notes: out.Notes}
	var errs []error
	for _, j := range out.Jobs {
		if j.Error != 0 {
			errs = append(errs, fmt.Errorf("fio job %s ended with error %d (%s)", j.Name, j.Error, unix.ErrnoName(unix.Errno(j.Error))))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	now, err := readDiskstats()
	if err != nil {
		return nil, err
	}
	secs := end.Sub(start).Seconds()
	for _, d := range w.devices {
		a, okA := w.before[d]
		z, okZ := now[d]
		// A counter that went back: the device was replaced during the run.
		back := z.ReadIOs < a.ReadIOs || z.WriteIOs < a.WriteIOs || z.ReadSectors < a.ReadSectors ||
			z.WriteSectors < a.WriteSectors || z.ReadTicks < a.ReadTicks || z.WriteTicks < a.WriteTicks || z.IOTicks < a.IOTicks
		if okA && okZ && secs > 0 && !back {
			rec.Block = append(rec.Block, iostat(d, a, z, secs))
		}
	}
	return rec, nil
}

// iostat is iostat -x's arithmetic over two diskstats samples.
func iostat(name string, a, z blockdev.Stat, secs float64) state.IOStat {
	await := func(ticks, ios uint64) *float64 {
		if ios == 0 {
			return nil
		}
		v := float64(ticks) / float64(ios)
		return &v
	}
	rIOs, wIOs := z.ReadIOs-a.ReadIOs, z.WriteIOs-a.WriteIOs
	return state.IOStat{Device: name, Seconds: secs,
		ReadsPerSec: float64(rIOs) / secs, WritesPerSec: float64(wIOs) / secs,
		ReadBytesPerSec:  float64(z.ReadSectors-a.ReadSectors) * blockdev.SectorSize / secs,
		WriteBytesPerSec: float64(z.WriteSectors-a.WriteSectors) * blockdev.SectorSize / secs,
		ReadAwaitMs:      await(z.ReadTicks-a.ReadTicks, rIOs), WriteAwaitMs: await(z.WriteTicks-a.WriteTicks, wIOs),
		Util: min(float64(z.IOTicks-a.IOTicks)/1000/secs, 1)}
}
