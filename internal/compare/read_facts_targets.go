package compare

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/prometheus/common/model"

	"github.com/walab/walab/internal/promql"
)

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
