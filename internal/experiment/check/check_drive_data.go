package check

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/walab/walab/internal/experiment/plan"
)

// driveDataCheck: what each arm holds on the drive under test, one data
// filesystem per namespace (paths), read from the database host's statfs
// (df's used bytes), is the same in all: the arms differ in where the data
// is, not in how much of the drive it takes. An arm that leaves a copy
// behind (a restore onto namespace 1 that the candidate then copies to
// namespace 2) holds more, and has less over-provisioning. Each set-up's
// figures are kept in the journal; the drive's totals may differ by
// driveDataSlack (file system metadata, the instances' own logs).
var driveDataCheck = checkKind{
	keys:  "paths (the data filesystems, one per namespace)",
	needs: needs{exporter: true},
	validate: func(_ *plan.Plan, c plan.Check) []string {
		return need(len(c.Paths) != 0, "paths missing (the data filesystems on the drive, e.g. [/data, /data2])")
	},
	run: runOf((*Env).checkDriveData),
}

func init() { register("drive_data", driveDataCheck) }

// driveDataSlack is how far two arms' totals may differ: 2 %, at least
// 1 GiB.
func driveDataSlack(a, b uint64) bool {
	d := math.Abs(float64(a) - float64(b))
	return d <= max(1<<30, 0.02*float64(max(a, b)))
}

func (e *Env) checkDriveData(ctx context.Context, c plan.Check) (string, error) {
	f, err := e.hostFacts(ctx)
	if err != nil {
		return "", err
	}
	got := map[string]uint64{}
	for _, p := range c.Paths {
		m, err := f.MountOf(p)
		if err != nil {
			return "", fmt.Errorf("%s on %s: %w", p, f.Hostname, err)
		}
		if m.UsedBytes == nil {
			return "", fmt.Errorf("%s on %s: used bytes not known (statfs of %s failed on the database host)", p, f.Hostname, m.MountPoint)
		}
		got[p] = *m.UsedBytes
	}
	if e.State.DriveData == nil {
		e.State.DriveData = map[string]map[string]uint64{}
	}
	e.State.DriveData[e.Setup] = got
	msg := "on " + f.Hostname + ": " + driveDataLine(got)
	for _, setup := range slices.Sorted(maps.Keys(e.State.DriveData)) {
		if setup == e.Setup {
			continue
		}
		other := e.State.DriveData[setup]
		if !driveDataSlack(sum(got), sum(other)) {
			return "", fmt.Errorf("%s, but %s held %s: the arms do not hold the same data on the drive (a copy one arm leaves there takes over-provisioning from it)", msg, strings.TrimSuffix(setup, "/"), driveDataLine(other))
		}
		msg += ", as " + strings.TrimSuffix(setup, "/") + " held (" + human(sum(other)) + ")"
	}
	return msg, nil
}

func sum(m map[string]uint64) uint64 {
	var n uint64
	for _, v := range m {
		n += v
	}
	return n
}

// driveDataLine is "/data 812.0 GB, /data2 0 B (812.0 GB in all)".
func driveDataLine(m map[string]uint64) string {
	var parts []string
	for _, p := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, p+" "+human(m[p]))
	}
	return strings.Join(parts, ", ") + " (" + human(sum(m)) + " in all)"
}
