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
	winStart := compared[0].At.Add(-round)
	winEnd := compared[len(compared)-1].At
	win := model.Duration(winEnd.Sub(winStart)).String()
	runDur := runSpan(run)
	dev := deviceSelector(devices) + s.onHost()
	instant := func(q string, at time.Time) (model.Vector, error) {
		res, _, _, err := s.API.Query(ctx, q, at)
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", q, err)
		}
		v, _ := res.(model.Vector)
		return v, nil
	}
	scalar := func(q string, at time.Time) (*float64, error) {
		v, err := instant(q, at)
		if err != nil || len(v) == 0 {
			return nil, err
		}
		x := float64(v[0].Value)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, nil
		}
		return &x, nil
	}
	v, err := instant(fmt.Sprintf("last_over_time("+promql.NVMeInfo+"{%s}[%s])", dev, runDur), run.End)
	if err != nil {
		return f, err
	}
	// An array's drives: every serial and firmware, in device order.
	sort.Slice(v, func(i, j int) bool { return v[i].Metric["device"] < v[j].Metric["device"] })
	var serials, firmwares []string
	f.Simulated = len(v) > 0
	if len(v) > len(devices) {
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
	if f.FillStart, err = scalar("max(last_over_time("+promql.FilesystemUsed+"[5m]) / last_over_time("+promql.FilesystemSize+"[5m]))", run.Start); err != nil {
		return f, err
	}
	if f.DriveTurns, err = scalar(fmt.Sprintf("sum(last_over_time("+promql.NVMeMediaWrittenBytes+"{%[1]s}[5m])) / sum(max by (device) (last_over_time("+promql.NVMeCapacity+"{%[1]s}[5m])))", dev), run.Start); err != nil {
		return f, err
	}
	if f.FSServing, err = scalar(fmt.Sprintf("min(min_over_time("+promql.SimFSServing+"{%s}[%s]))", dev, runDur), run.End); err != nil {
		return f, err
	}
	pl, err := scalar(fmt.Sprintf(`max(max_over_time(`+promql.NVMeDirectiveEnabled+`{%[1]s,directive=~"streams|data_placement"}[%[2]s]) or max_over_time(`+promql.NVMeFDPEnabled+`{%[1]s}[%[2]s]))`, dev, win), winEnd)
	if err != nil {
		return f, err
	}
	if pl != nil {
		on := *pl >= 1
		f.Placement = &on
	}
	// The MySQL targets loadgen drove in the run (none for a time range):
	// read once, for the offered load, the server's COMMITs and the settings.
	targets, err := s.runTargets(ctx, run, runDur)
	if err != nil {
		return f, err
	}
	if err := s.blockFacts(ctx, &f, devices, win, winEnd, runDur, run, targets, instant, scalar); err != nil {
		return f, err
	}
	if f.PlacedShare, err = scalar(fmt.Sprintf(`(sum(increase(`+promql.NVMeWriteBytes+`{%[1]s,directive!="none"}[%[2]s])) or sum(increase(`+promql.NVMeWriteBytes+`{%[1]s}[%[2]s])) * 0) / (sum(increase(`+promql.NVMeWriteBytes+`{%[1]s}[%[2]s])) > 0)`, dev, win), winEnd); err != nil {
		return f, err
	}
	if f.NamespaceShare, err = scalar(fmt.Sprintf(`1 - max(increase(%[3]s{%[1]s}[%[2]s])) / (sum(increase(%[3]s{%[1]s}[%[2]s])) > 0)`, dev, win, promql.NVMeNamespaceWrittenBytes), winEnd); err != nil {
		return f, err
	}
	// The load loadgen offered over the run, on the run's targets.
	tsel := targetSelector(targets)
	if f.Terminals, err = scalar(fmt.Sprintf(`sum(max_over_time(`+promql.LoadgenActiveTerminals+`{%s}[%s]))`, strings.TrimPrefix(tsel, ","), runDur), run.End); err != nil {
		return f, err
	}
	if f.RateLimit, err = scalar(fmt.Sprintf(`sum(max_over_time(`+promql.LoadgenTargetRate+`{%s}[%s]))`, strings.TrimPrefix(tsel, ","), runDur), run.End); err != nil {
		return f, err
	}
	if err := s.roundFacts(ctx, &f, roundBounds(perf, round), tsel); err != nil {
		return f, err
	}
	return f, nil
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
func (s Source) blockFacts(ctx context.Context, f *RunFacts, devices []string, win string, winEnd time.Time, runDur string, run Run, targets map[string]bool,
	instant func(string, time.Time) (model.Vector, error), scalar func(string, time.Time) (*float64, error)) error {
	ctrl := strings.Replace(deviceSelector(devices), "device", "controller", 1) + s.onHost()
	ns := fmt.Sprintf(promql.BlockdevInfo+`{%s,kind="nvme"}`, ctrl)
	per := func(metric string) string {
		return fmt.Sprintf(`sum(increase(%s[%s]) * on (instance, job, device) group_left () %s)`, metric, win, ns)
	}
	secs, err := model.ParseDuration(win)
	if err != nil {
		return err
	}
	sec := time.Duration(secs).Seconds()
	b := &f.Block
	for _, q := range []struct {
		dst  **float64
		expr string
	}{
		{&b.WritesPerSec, per(promql.BlockdevWritesCompleted) + fmt.Sprintf(" / %g", sec)},
		{&b.WriteBytesPerSec, per(promql.BlockdevWrittenBytes) + fmt.Sprintf(" / %g", sec)},
		{&b.WriteAwaitSec, per(promql.BlockdevWriteTime) + " / (" + per(promql.BlockdevWritesCompleted) + " > 0)"},
		{&b.Util, fmt.Sprintf(`max(increase(`+promql.BlockdevIOTime+`[%s]) * on (instance, job, device) group_left () %s) / %g`, win, ns, sec)},
	} {
		if *q.dst, err = scalar(q.expr, winEnd); err != nil {
			return err
		}
	}
	// md sync: arrays over the drive's namespaces, if any.
	known, err := scalar(fmt.Sprintf(`count(last_over_time(%s[%s]))`, ns, win), winEnd)
	if err != nil {
		return err
	}
	if known != nil {
		sync, err := scalar(fmt.Sprintf(`max(max_over_time(`+promql.MDSyncActive+`[%s]) * on (instance, job, device) group_left () label_replace(max by (instance, job, array) (last_over_time(`+promql.BlockdevLeafInfo+`{%s}[%s])), "device", "$1", "array", "(.+)"))`, win, ctrl, win), winEnd)
		if err != nil {
			return err
		}
		v := sync != nil && *sync > 0
		f.MDSync = &v
	}
	// MySQL variables at the end of the run, of the run's targets (all
	// targets for a run given as a time range): name -> the values over
	// those targets, so a baseline on one instance and a candidate on
	// another compare their own settings.
	end := run.End
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
	v, err := instant(fmt.Sprintf("last_over_time("+promql.MySQLSetting+"[%s])", runDur), end)
	if err != nil {
		return err
	}
	for _, smp := range v {
		add(string(smp.Metric["target"]), string(smp.Metric["name"]), strconv.FormatFloat(float64(smp.Value), 'g', -1, 64))
	}
	v, err = instant(fmt.Sprintf("last_over_time("+promql.MySQLSettingInfo+"[%s])", runDur), end)
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
