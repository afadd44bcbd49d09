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

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/walab/walab/internal/promql"
)

// Source reads runs and counters from a Prometheus HTTP API.
type Source struct {
	API v1.API
	// Resolution of the run search (the run's start and end are known to
	// within one step). Default 1m.
	Step time.Duration
	// Instance, when set, reads the drive's series of this instance only:
	// a device name on several hosts is refused without it (hosts.go).
	Instance string
}

var runIDRe = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,128}$`)

// FindRun finds a run's start and end: the first and last time
// walab_loadgen_run_info{run_id=id} (or walab_experiment_run_info, a fio
// run of walab experiment) had a sample, searching [from, to].
func (s Source) FindRun(ctx context.Context, id string, from, to time.Time) (Run, error) {
	if !runIDRe.MatchString(id) {
		return Run{}, fmt.Errorf("run id %q: only letters, digits and _.:- allowed", id)
	}
	step := s.Step
	if step <= 0 {
		step = time.Minute
	}
	// timestamp() gives each sample's own time, so the run's edges are exact
	// even though a series stays visible for the lookback after its last sample.
	// walab experiment marks runs of tools without such a series (fio) with
	// walab_experiment_run_info.
	q := fmt.Sprintf(`max by (run_id, scenario) (timestamp(`+promql.LoadgenRunInfo+`{run_id=%[1]q}) or timestamp(`+promql.ExperimentRunInfo+`{run_id=%[1]q}))`, id)
	// Prometheus caps a range query at 11000 points: widen the step for long searches.
	if n := to.Sub(from) / step; n > 10000 {
		step = to.Sub(from) / 10000
	}
	res, _, _, err := s.API.QueryRange(ctx, q, v1.Range{Start: from, End: to, Step: step})
	if err != nil {
		return Run{}, fmt.Errorf("find run %s: %w", id, err)
	}
	m, ok := res.(model.Matrix)
	if !ok || len(m) == 0 {
		return Run{}, fmt.Errorf("run %s: no "+promql.LoadgenRunInfo+" or "+promql.ExperimentRunInfo+" between %s and %s", id, from.Format(time.RFC3339), to.Format(time.RFC3339))
	}
	if len(m) > 1 {
		return Run{}, fmt.Errorf("run %s: %d scenarios for one run id", id, len(m))
	}
	first, last := math.Inf(1), math.Inf(-1)
	for _, p := range m[0].Values {
		first = math.Min(first, float64(p.Value))
		last = math.Max(last, float64(p.Value))
	}
	return Run{
		ID:       id,
		Scenario: string(m[0].Metric["scenario"]),
		Start:    unixTime(first),
		End:      unixTime(last),
	}, nil
}

func unixTime(sec float64) time.Time {
	return time.UnixMilli(int64(math.Round(sec * 1000))).UTC()
}

// Coverage is the least share of an hour that a counter must cover,
// relative to the other counter's samples, for the hour to count: an
// increase() over a few minutes of samples is an extrapolation, not the
// hour's writes.
const Coverage = 0.9

// Hourly is Table with one-hour rounds.
func (s Source) Hourly(ctx context.Context, run Run, device string) ([]Hour, error) {
	return s.Table(ctx, run, device, time.Hour)
}

// Table returns the run's per-round table for one device: round h covers
// [start + (h-1)·round, start + h·round]; rounds that end after the run are
// left out. Every round of the run is in the table: one without NAND or
// host data, or with one counter sampled for less than Coverage of the
// other's samples, has Missing set (never NAND 0).
func (s Source) Table(ctx context.Context, run Run, device string, round time.Duration) ([]Hour, error) {
	if !model.LabelValue(device).IsValid() || device == "" {
		return nil, fmt.Errorf("bad device %q", device)
	}
	r, err := rounds(run, round)
	if err != nil {
		return nil, err
	}
	if err := s.oneHost(ctx, run, device); err != nil {
		return nil, err
	}
	first, rs := r.Start, model.Duration(round).String()
	get := func(fn, metric string) (map[int64]float64, error) {
		m, err := s.perRound(ctx, fmt.Sprintf(`sum(%s(%s{device=%q%s}[%s]))`, fn, metric, device, s.onHost(), rs), r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", metric, err)
		}
		return m, nil
	}
	nandMetric, hostMetric := promql.NVMeMediaWrittenBytes, promql.NVMeHostWrittenBytes
	var q [4]map[int64]float64
	for i, c := range [][2]string{{"increase", nandMetric}, {"increase", hostMetric}, {"count_over_time", nandMetric}, {"count_over_time", hostMetric}} {
		m, err := get(c[0], c[1])
		if err != nil {
			return nil, err
		}
		q[i] = m
	}
	nand, host, nandN, hostN := q[0], q[1], q[2], q[3]
	var hours []Hour
	seen := false
	for at := first; !at.After(run.End); at = at.Add(round) {
		k := int64(model.TimeFromUnixNano(at.UnixNano()))
		h := Hour{Hour: int((at.Sub(run.Start) + round/2) / round), At: at}
		nv, nok := nand[k]
		hv, hok := host[k]
		seen = seen || nok || hok
		switch {
		case !nok && !hok:
			h.Missing = "no counters: exporter or Prometheus not scraping"
		case !nok:
			h.Missing = "no NAND data: the drive's NAND source was down or absent"
		case !hok:
			h.Missing = "no host data"
		case nonFinite(figure{"NAND counter increase", nv}, figure{"host counter increase", hv}, figure{"NAND sample count", nandN[k]}, figure{"host sample count", hostN[k]}) != "":
			h.Missing = nonFinite(figure{"NAND counter increase", nv}, figure{"host counter increase", hv}, figure{"NAND sample count", nandN[k]}, figure{"host sample count", hostN[k]})
		default:
			if lo, hi := min(nandN[k], hostN[k]), max(nandN[k], hostN[k]); hi > 0 && lo < Coverage*hi {
				which := "NAND"
				if hostN[k] < nandN[k] {
					which = "host"
				}
				h.Missing = fmt.Sprintf("%s data for %.0f%% of the hour", which, 100*lo/hi)
			} else {
				h.NANDBytes, h.HostBytes = nv, hv
			}
		}
		hours = append(hours, h)
	}
	if !seen {
		return nil, fmt.Errorf("run %s: no NAND/host counters for device %s", run.ID, device)
	}
	return hours, nil
}

// rounds is the query range of a run's rounds: one step per round, the
// first ending one round after the start.
func rounds(run Run, round time.Duration) (v1.Range, error) {
	if round < time.Second {
		return v1.Range{}, fmt.Errorf("round %s: at least 1s", round)
	}
	first := run.Start.Add(round)
	if first.After(run.End) {
		return v1.Range{}, fmt.Errorf("run %s lasted %s: less than one round (%s)", run.ID, run.End.Sub(run.Start).Round(time.Second), round)
	}
	return v1.Range{Start: first, End: run.End, Step: round}, nil
}

// perRound runs a range query of one series and returns its values by
// timestamp (milliseconds).
func (s Source) perRound(ctx context.Context, q string, r v1.Range) (map[int64]float64, error) {
	res, _, _, err := s.API.QueryRange(ctx, q, r)
	if err != nil {
		return nil, err
	}
	out := map[int64]float64{}
	if m, ok := res.(model.Matrix); ok && len(m) > 1 {
		return nil, fmt.Errorf("query %s: %d series (%s), want one: walab does not pick one of them", q, len(m), seriesNames(m))
	} else if ok {
		for _, ss := range m {
			for _, p := range ss.Values {
				out[int64(p.Timestamp)] = float64(p.Value)
			}
		}
	}
	return out, nil
}

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
