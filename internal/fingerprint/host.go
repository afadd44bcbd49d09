package fingerprint

import (
	"context"
	"fmt"
	"net/http"
	"reflect"

	"github.com/walab/walab/internal/buildinfo"
	"github.com/walab/walab/internal/hostapi"
)

// ReadHost reads the database host's side from its exporter at base (GET
// /api/v1/host); paths are the data directories whose filesystems are
// recorded. Errors name what was not read. Nothing is read from the
// machine the caller runs on.
func ReadHost(ctx context.Context, client *http.Client, base string, paths []string) (Host, *hostapi.Facts, []string) {
	if base == "" {
		return Host{}, nil, []string{"host: the plan names no exporter of the database host"}
	}
	f, err := hostapi.Get(ctx, client, base)
	if err != nil {
		return Host{}, nil, []string{"host: " + err.Error()}
	}
	h := Host{Hostname: f.Hostname, Kernel: f.Kernel, OS: f.OS, CPUModel: f.CPUModel, CPUs: f.CPUs,
		MemoryBytes: f.MemoryBytes, NUMANodes: f.NUMANodes, Governor: f.Governor, Irqbalance: f.Irqbalance}
	if !reflect.ValueOf(f.Tuning).IsZero() {
		t := f.Tuning
		h.Tuning = &t
	}
	for _, p := range f.Processes {
		h.Processes = append(h.Processes, Process{Name: p.Name, Dir: p.Dir, CPUs: p.CPUs, Mems: p.Mems, NUMAPolicy: p.NUMAPolicy})
	}
	var errs []string
	for _, e := range f.Errors {
		errs = append(errs, "host "+f.Hostname+": "+e)
	}
	for _, p := range paths {
		m, err := f.MountOf(p)
		if err != nil {
			errs = append(errs, fmt.Sprintf("mount of %s: %v", p, err))
			continue
		}
		h.Mounts = append(h.Mounts, Mount{Path: p, Device: m.Device, Source: m.Source, FSType: m.FSType, Options: m.Options,
			Block: m.Block, Disks: m.Disks, Aligned4K: m.Aligned4K})
		for d, s := range m.Schedulers {
			if h.Schedulers == nil {
				h.Schedulers = map[string]string{}
			}
			h.Schedulers[d] = s
		}
	}
	return h, f, errs
}

// Tools are the versions of the runner and of the exporter that gave f.
func Tools(f *hostapi.Facts) map[string]string {
	t := map[string]string{"walab": versionOf(buildinfo.Get())}
	if f != nil {
		t["exporter"] = versionOf(f.Walab)
	}
	return t
}

func versionOf(i buildinfo.Info) string {
	return fmt.Sprintf("%s (commit %s, %s)", i.Version, i.Commit(), i.GoVersion)
}
