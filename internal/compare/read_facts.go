package compare

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"github.com/walab/walab/internal/promql"
)

// Facts reads what Prometheus knows about a run besides its WA table: the
// compared rounds bound the placement and block-layer windows, the perf
// rounds the throughput and latency figures. What is not there stays
// unset: a check then says "unknown".
func (s Source) Facts(ctx context.Context, run Run, devices []string, compared, perf []Hour, round time.Duration) (RunFacts, error) {
	var f RunFacts
	if len(compared) == 0 {
		return f, nil
	}
	w := s.factWindow(run, devices, compared, round)
	if err := s.identityFacts(ctx, &f, w); err != nil {
		return f, err
	}
	if err := s.driveFacts(ctx, &f, w); err != nil {
		return f, err
	}
	// The MySQL targets loadgen drove in the run (none for a time range):
	// read once, for the offered load, the server's COMMITs and the settings.
	targets, err := s.runTargets(ctx, run, w.runDur)
	if err != nil {
		return f, err
	}
	if err := s.blockFacts(ctx, &f, w, targets); err != nil {
		return f, err
	}
	if err := s.shareFacts(ctx, &f, w); err != nil {
		return f, err
	}
	tsel := targetSelector(targets)
	if err := s.loadFacts(ctx, &f, w, tsel); err != nil {
		return f, err
	}
	if err := s.roundFacts(ctx, &f, roundBounds(perf, round), tsel); err != nil {
		return f, err
	}
	return f, nil
}

// factWindow is what Facts' queries are bounded by: the run, its devices,
// the compared rounds' window (win, ending at winEnd) and the run's span.
type factWindow struct {
	run     Run
	devices []string
	dev     string // the devices' selector, on the source's host
	win     string
	winEnd  time.Time
	runDur  string
}

func (s Source) factWindow(run Run, devices []string, compared []Hour, round time.Duration) factWindow {
	winStart := compared[0].At.Add(-round)
	winEnd := compared[len(compared)-1].At
	return factWindow{
		run: run, devices: devices, dev: deviceSelector(devices) + s.onHost(),
		win: model.Duration(winEnd.Sub(winStart)).String(), winEnd: winEnd, runDur: runSpan(run),
	}
}

// instant is an instant query's vector at at (nil for another type).
func (s Source) instant(ctx context.Context, q string, at time.Time) (model.Vector, error) {
	res, _, _, err := s.API.Query(ctx, q, at)
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", q, err)
	}
	v, _ := res.(model.Vector)
	return v, nil
}

// firstScalar is the first value of an instant query at at, nil when the
// answer is empty or not a finite number.
func (s Source) firstScalar(ctx context.Context, q string, at time.Time) (*float64, error) {
	v, err := s.instant(ctx, q, at)
	if err != nil || len(v) == 0 {
		return nil, err
	}
	x := float64(v[0].Value)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil, nil
	}
	return &x, nil
}

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

// loadFacts reads the load loadgen offered over the run, on the run's
// targets (tsel).
func (s Source) loadFacts(ctx context.Context, f *RunFacts, w factWindow, tsel string) error {
	var err error
	if f.Terminals, err = s.firstScalar(ctx, fmt.Sprintf(`sum(max_over_time(`+promql.LoadgenActiveTerminals+`{%s}[%s]))`, strings.TrimPrefix(tsel, ","), w.runDur), w.run.End); err != nil {
		return err
	}
	f.RateLimit, err = s.firstScalar(ctx, fmt.Sprintf(`sum(max_over_time(`+promql.LoadgenTargetRate+`{%s}[%s]))`, strings.TrimPrefix(tsel, ","), w.runDur), w.run.End)
	return err
}

// runSpan is the run's length as a PromQL range, at least a minute.
func runSpan(run Run) string {
	return model.Duration(max(run.End.Sub(run.Start), time.Minute)).String()
}

// runTargets are the MySQL targets loadgen drove in the run; none for a
// run given as a time range.
func (s Source) runTargets(ctx context.Context, run Run, runDur string) (map[string]bool, error) {
	q := fmt.Sprintf("group by (target) (last_over_time("+promql.LoadgenRunInfo+"{run_id=%q}[%s]))", run.ID, runDur)
	res, _, _, err := s.API.Query(ctx, q, run.End)
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", q, err)
	}
	targets := map[string]bool{}
	v, _ := res.(model.Vector)
	for _, smp := range v {
		targets[string(smp.Metric["target"])] = true
	}
	return targets, nil
}

// targetSelector is `,target=~"a|b"` for the run's targets, or "" (every
// target) when the run names none.
func targetSelector(targets map[string]bool) string {
	if len(targets) == 0 {
		return ""
	}
	var ts []string
	for t := range targets {
		ts = append(ts, regexp.QuoteMeta(t))
	}
	sort.Strings(ts)
	return fmt.Sprintf(",target=~%q", strings.Join(ts, "|"))
}

// blockFacts reads the block-layer view of the drives' namespaces, whether
// an md sync over them ran, and the MySQL variables at the run's end.
func (s Source) blockFacts(ctx context.Context, f *RunFacts, w factWindow, targets map[string]bool) error {
	ctrl := strings.Replace(deviceSelector(w.devices), "device", "controller", 1) + s.onHost()
	ns := fmt.Sprintf(promql.BlockdevInfo+`{%s,kind="nvme"}`, ctrl)
	if err := s.blockRates(ctx, &f.Block, w, ns); err != nil {
		return err
	}
	if err := s.mdSyncFact(ctx, f, w, ctrl, ns); err != nil {
		return err
	}
	return s.settingsFact(ctx, f, w, targets)
}

// blockRates reads the namespaces' (ns) writes and bytes a second, write
// await and utilisation over the window.
func (s Source) blockRates(ctx context.Context, b *BlockView, w factWindow, ns string) error {
	per := func(metric string) string {
		return fmt.Sprintf(`sum(increase(%s[%s]) * on (instance, job, device) group_left () %s)`, metric, w.win, ns)
	}
	secs, err := model.ParseDuration(w.win)
	if err != nil {
		return err
	}
	sec := time.Duration(secs).Seconds()
	for _, q := range []struct {
		dst  **float64
		expr string
	}{
		{&b.WritesPerSec, per(promql.BlockdevWritesCompleted) + fmt.Sprintf(" / %g", sec)},
		{&b.WriteBytesPerSec, per(promql.BlockdevWrittenBytes) + fmt.Sprintf(" / %g", sec)},
		{&b.WriteAwaitSec, per(promql.BlockdevWriteTime) + " / (" + per(promql.BlockdevWritesCompleted) + " > 0)"},
		{&b.Util, fmt.Sprintf(`max(increase(`+promql.BlockdevIOTime+`[%s]) * on (instance, job, device) group_left () %s) / %g`, w.win, ns, sec)},
	} {
		if *q.dst, err = s.firstScalar(ctx, q.expr, w.winEnd); err != nil {
			return err
		}
	}
	return nil
}

// mdSyncFact reads whether an md sync ran on arrays over the drives'
// namespaces (ns, of the controllers ctrl), if the namespaces are known.
func (s Source) mdSyncFact(ctx context.Context, f *RunFacts, w factWindow, ctrl, ns string) error {
	known, err := s.firstScalar(ctx, fmt.Sprintf(`count(last_over_time(%s[%s]))`, ns, w.win), w.winEnd)
	if err != nil || known == nil {
		return err
	}
	sync, err := s.firstScalar(ctx, fmt.Sprintf(`max(max_over_time(`+promql.MDSyncActive+`[%s]) * on (instance, job, device) group_left () label_replace(max by (instance, job, array) (last_over_time(`+promql.BlockdevLeafInfo+`{%s}[%s])), "device", "$1", "array", "(.+)"))`, w.win, ctrl, w.win), w.winEnd)
	if err != nil {
		return err
	}
	v := sync != nil && *sync > 0
	f.MDSync = &v
	return nil
}

// settingsFact reads the MySQL variables at the end of the run, of the
// run's targets (all targets for a run given as a time range): name -> the
// values over those targets, so a baseline on one instance and a candidate
// on another compare their own settings.
func (s Source) settingsFact(ctx context.Context, f *RunFacts, w factWindow, targets map[string]bool) error {
	vals := map[string]map[string]bool{}
	add := func(target, name, value string) {
		if len(targets) > 0 && !targets[target] {
			return
		}
		if vals[name] == nil {
			vals[name] = map[string]bool{}
		}
		vals[name][value] = true
	}
	v, err := s.instant(ctx, fmt.Sprintf("last_over_time("+promql.MySQLSetting+"[%s])", w.runDur), w.run.End)
	if err != nil {
		return err
	}
	for _, smp := range v {
		add(string(smp.Metric["target"]), string(smp.Metric["name"]), strconv.FormatFloat(float64(smp.Value), 'g', -1, 64))
	}
	v, err = s.instant(ctx, fmt.Sprintf("last_over_time("+promql.MySQLSettingInfo+"[%s])", w.runDur), w.run.End)
	if err != nil {
		return err
	}
	for _, smp := range v {
		if n := string(smp.Metric["name"]); n != "datadir" && n != "version_comment" {
			add(string(smp.Metric["target"]), n, string(smp.Metric["value"]))
		}
	}
	for name, set := range vals {
		if f.Settings == nil {
			f.Settings = map[string]string{}
		}
		var vs []string
		for v := range set {
			vs = append(vs, v)
		}
		sort.Strings(vs)
		f.Settings[name] = strings.Join(vs, ",")
	}
	return nil
}

// arrayTheory reads the array's full-stripe WA at the run's end.
func (s Source) arrayTheory(ctx context.Context, run Run, array string) (*float64, error) {
	res, _, _, err := s.API.Query(ctx, fmt.Sprintf(`max(last_over_time(`+promql.MDTheoreticalWA+`{device=%q}[%s]))`, array, model.Duration(max(run.End.Sub(run.Start), time.Minute))), run.End)
	if err != nil {
		return nil, fmt.Errorf("array %s: %w", array, err)
	}
	if v, ok := res.(model.Vector); ok && len(v) > 0 && nonFinite(figure{"theory", float64(v[0].Value)}) == "" {
		x := float64(v[0].Value)
		return &x, nil
	}
	return nil, nil
}
