package compare

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/walab/walab/internal/promql"
)

// identityFacts reads the drives' identities: an array's every serial and
// firmware, in device order, and whether all are simulated.
func (s Source) identityFacts(ctx context.Context, f *RunFacts, w factWindow) error {
	v, err := s.instant(ctx, fmt.Sprintf("last_over_time("+promql.NVMeInfo+"{%s}[%s])", w.dev, w.runDur), w.run.End)
	if err != nil {
		return err
	}
	sort.Slice(v, func(i, j int) bool { return v[i].Metric["device"] < v[j].Metric["device"] })
	var serials, firmwares []string
	f.Simulated = len(v) > 0
	if len(v) > len(w.devices) {
		// More identities than devices: a drive changed during the run,
		// or the series are not one exporter's (200,000 serials for one
		// device passed once). Only the first is kept, to name it.
		f.Identities = len(v)
		v = v[:1]
	}
	for _, smp := range v {
		serials, firmwares = append(serials, string(smp.Metric["serial"])), append(firmwares, string(smp.Metric["firmware"]))
		f.Simulated = f.Simulated && smp.Metric["simulated"] == "true"
	}
	f.Serial, f.Firmware = strings.Join(serials, ","), strings.Join(firmwares, ",")
	return nil
}

// driveFacts reads the filesystem's fill and the drives' turns at the
// run's start, whether the simulated filesystem served throughout, and
// whether data placement was on in the window.
func (s Source) driveFacts(ctx context.Context, f *RunFacts, w factWindow) error {
	var err error
	if f.FillStart, err = s.firstScalar(ctx, "max(last_over_time("+promql.FilesystemUsed+"[5m]) / last_over_time("+promql.FilesystemSize+"[5m]))", w.run.Start); err != nil {
		return err
	}
	if f.DriveTurns, err = s.firstScalar(ctx, fmt.Sprintf("sum(last_over_time("+promql.NVMeMediaWrittenBytes+"{%[1]s}[5m])) / sum(max by (device) (last_over_time("+promql.NVMeCapacity+"{%[1]s}[5m])))", w.dev), w.run.Start); err != nil {
		return err
	}
	if f.Capacity, err = s.firstScalar(ctx, fmt.Sprintf("sum(max by (device) (last_over_time("+promql.NVMeCapacity+"{%s}[5m])))", w.dev), w.run.Start); err != nil {
		return err
	}
	if f.FSServing, err = s.firstScalar(ctx, fmt.Sprintf("min(min_over_time("+promql.SimFSServing+"{%s}[%s]))", w.dev, w.runDur), w.run.End); err != nil {
		return err
	}
	pl, err := s.firstScalar(ctx, fmt.Sprintf(`max(max_over_time(`+promql.NVMeDirectiveEnabled+`{%[1]s,directive=~"streams|data_placement"}[%[2]s]) or max_over_time(`+promql.NVMeFDPEnabled+`{%[1]s}[%[2]s]))`, w.dev, w.win), w.winEnd)
	if err != nil {
		return err
	}
	if pl != nil {
		on := *pl >= 1
		f.Placement = &on
	}
	return nil
}

// shareFacts reads the window's share of writes that carried a placement
// directive and the share written outside the busiest namespace.
func (s Source) shareFacts(ctx context.Context, f *RunFacts, w factWindow) error {
	var err error
	if f.PlacedShare, err = s.firstScalar(ctx, fmt.Sprintf(`(sum(increase(`+promql.NVMeWriteBytes+`{%[1]s,directive!="none"}[%[2]s])) or sum(increase(`+promql.NVMeWriteBytes+`{%[1]s}[%[2]s])) * 0) / (sum(increase(`+promql.NVMeWriteBytes+`{%[1]s}[%[2]s])) > 0)`, w.dev, w.win), w.winEnd); err != nil {
		return err
	}
	f.NamespaceShare, err = s.firstScalar(ctx, fmt.Sprintf(`1 - max(increase(%[3]s{%[1]s}[%[2]s])) / (sum(increase(%[3]s{%[1]s}[%[2]s])) > 0)`, w.dev, w.win, promql.NVMeNamespaceWrittenBytes), w.winEnd)
	return err
}
