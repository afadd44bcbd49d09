// Package hostfacts reads, on the machine it runs on, what walab's pre-run
// checks and fingerprints need about a database host: identity (hostname,
// kernel, OS, CPU, memory, NUMA), the filesystems of the data directories
// and the drives under them, IRQ and process CPU lists, governor and
// irqbalance. The exporter serves the result (GET /api/v1/host, and the
// numbers as walab_host_* metrics); nothing else reads these files, so
// `walab experiment` describes the database host even from a client
// machine.
package hostfacts

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/walab/walab/internal/buildinfo"
	"github.com/walab/walab/internal/hostapi"
)

// Bounds on the lists a host can make long; a cut list is named in
// Facts.Truncated.
const (
	MaxDataDirs  = 16
	MaxMounts    = 64
	MaxIRQs      = 1024
	MaxProcesses = 16 // per name
)

// Options say where to look and what to watch.
type Options struct {
	ProcFS, SysFS string   // roots, default /proc and /sys
	DataDirs      []string // absolute directories whose filesystems matter
	Interfaces    []string // NICs whose IRQs are watched (NVMe queues always are)
	Processes     []string // comm names (mysqld, mariadbd)
	SkipIRQs      bool     // leave out the IRQ lines (a caller that does not use them)
	// StatfsTimeout bounds the wait for one stat or statfs (a hung
	// mount), and Read's context the wait for all; default 5 s.
	StatfsTimeout time.Duration
	// Prober sends the stat and statfs calls; nil: the process's own,
	// shared by every Read without one.
	Prober *Prober
}

func (o Options) withDefaults() Options {
	if o.ProcFS == "" {
		o.ProcFS = "/proc"
	}
	if o.SysFS == "" {
		o.SysFS = "/sys"
	}
	if o.StatfsTimeout <= 0 {
		o.StatfsTimeout = 5 * time.Second
	}
	if o.Prober == nil {
		o.Prober = shared
	}
	return o
}

// Check refuses options the exporter must not start with.
func (o Options) Check() error {
	if len(o.DataDirs) > MaxDataDirs {
		return fmt.Errorf("host: %d data_dirs, at most %d", len(o.DataDirs), MaxDataDirs)
	}
	seen := map[string]bool{}
	for _, d := range o.DataDirs {
		if !filepath.IsAbs(d) || filepath.Clean(d) != d {
			return fmt.Errorf("host: data_dirs entry %q is not a clean absolute path", d)
		}
		if seen[d] {
			return fmt.Errorf("host: data_dirs entry %q is listed twice", d)
		}
		seen[d] = true
	}
	return nil
}

// Read reads every fact; what cannot be read is absent and named in
// Errors. It returns by ctx's deadline: a data directory on a hung mount
// loses its facts, not the caller's time, and costs at most one blocked
// thread per path (see Prober).
func Read(ctx context.Context, o Options) hostapi.Facts {
	o = o.withDefaults()
	f := hostapi.Facts{Walab: buildinfo.Get(), DataDirs: o.DataDirs}
	errf := func(format string, a ...any) { f.Errors = append(f.Errors, fmt.Sprintf(format, a...)) }
	readSystem(o, &f, errf)
	readMounts(ctx, o, &f, errf)
	if !o.SkipIRQs {
		readIRQs(o, &f, errf)
	}
	readProcesses(o, &f, errf)
	readTuning(o, &f, errf)
	return f
}
