package compare

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/walab/walab/internal/promql"
)

// checkHostRate: the same offered load, seen as host bytes per round.
func checkHostRate(j *judgement) {
	hb, hc := hostRate(j.r.Last[0]), hostRate(j.r.Last[1])
	if rel := math.Abs(hc-hb) / hb; rel > *j.o.Checks.RateTolerance {
		j.add("host write rate", Fail, "%.1f vs %.1f MiB per %s (%+.0f%%, tolerance %.0f%%)", hb/MiB, hc/MiB, j.unit, 100*(hc-hb)/hb, 100**j.o.Checks.RateTolerance)
	} else {
		j.add("host write rate", Pass, "%.1f vs %.1f MiB per %s", hb/MiB, hc/MiB, j.unit)
	}
}

// checkOfferedLoad: the same offered load, as loadgen's terminals and
// rate limit.
func checkOfferedLoad(j *judgement) {
	b, c := j.b, j.c
	switch {
	case b.Terminals == nil || c.Terminals == nil:
		j.add("same offered load", Unknown, "%s not found for both runs (load from another client)", promql.LoadgenActiveTerminals)
	case *b.Terminals != *c.Terminals || ptrValue(b.RateLimit) != ptrValue(c.RateLimit):
		st := Fail
		detail := fmt.Sprintf("%s vs %s", offered(b), offered(c))
		if j.o.Checks.AllowConfigDrift {
			st, detail = Pass, "differs, allowed: "+detail
		}
		j.add("same offered load", st, "%s", detail)
	default:
		j.add("same offered load", Pass, "%s", offered(b))
	}
}

// checkMySQLConfig: configuration drift in the MySQL variables the seeds
// tune.
func checkMySQLConfig(j *judgement) {
	b, c := j.b, j.c
	if len(b.Settings) == 0 || len(c.Settings) == 0 {
		j.add("same MySQL config", Unknown, "%s not found for both runs", promql.MySQLSetting)
		return
	}
	var diff []string
	for _, k := range sortedUnion(b.Settings, c.Settings) {
		bv, bok := b.Settings[k]
		cv, cok := c.Settings[k]
		if bok && cok && bv != cv {
			diff = append(diff, fmt.Sprintf("%s %s vs %s", k, bv, cv))
		}
	}
	switch {
	case len(diff) == 0:
		noun := "variables"
		if len(b.Settings) == 1 {
			noun = "variable"
		}
		j.add("same MySQL config", Pass, "%d %s equal", len(b.Settings), noun)
	case j.o.Checks.AllowConfigDrift:
		j.add("same MySQL config", Pass, "differs, allowed: %s", strings.Join(diff, "; "))
	default:
		j.add("same MySQL config", Fail, "%s", strings.Join(diff, "; "))
	}
}

func ptrValue(x *float64) float64 {
	if x == nil {
		return 0
	}
	return *x
}

// offered describes a run's offered load: "8 terminals, unlimited rate".
func offered(f RunFacts) string {
	rate := "unlimited rate"
	if r := ptrValue(f.RateLimit); r > 0 {
		rate = fmt.Sprintf("at most %g transactions/s", r)
	}
	return fmt.Sprintf("%g terminals, %s", *f.Terminals, rate)
}

func hostRate(hs []Hour) float64 {
	var sum float64
	for _, h := range hs {
		sum += h.HostBytes
	}
	return sum / float64(len(hs))
}

func sortedUnion(a, b map[string]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []map[string]string{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}
