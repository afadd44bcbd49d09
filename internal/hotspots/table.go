package hotspots

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// SpinKnobs are the InnoDB settings seed 003 changes against spin-lock
// contention, as the MySQL fingerprint names them.
var SpinKnobs = []string{"innodb_spin_wait_delay", "innodb_sync_spin_loops"}

// Run is what the table shows of one run.
type Run struct {
	Name     string
	Settings map[string]string // the fingerprint's variables; a knob not there is absent
	TpmTOTAL *float64          // nil: the run has none
	Profile  *Profile          // nil: no profile was taken
}

// Table writes the before/after markdown table of runs: the knobs, then
// tpmTOTAL and the samples, then the union of each run's top n functions
// (by self samples), each as its share of that run's samples, ordered by
// its largest share. A figure a run does not have is "—", never 0; a
// function a profiled run never sampled is 0.0 %, which is true, and one
// a run's partial profile does not list is at most its last function's
// share ("≤ 1.2 %").
func Table(runs []Run, knobs []string, n int) string {
	if len(runs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("|  |")
	for _, r := range runs {
		b.WriteString(" " + cell(r.Name) + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(runs)) + "\n")
	for _, k := range knobs {
		row(&b, k, runs, func(r Run) string {
			if v, ok := r.Settings[k]; ok {
				return cell(v)
			}
			return "—"
		})
	}
	row(&b, "tpmTOTAL", runs, func(r Run) string {
		if r.TpmTOTAL == nil {
			return "—"
		}
		return strconv.FormatFloat(*r.TpmTOTAL, 'f', 0, 64)
	})
	row(&b, "CPU samples", runs, func(r Run) string {
		if r.Profile == nil {
			return "—"
		}
		return strconv.FormatInt(r.Profile.Total, 10)
	})
	for _, f := range topUnion(runs, n) {
		row(&b, cell(f.Function)+" ("+cell(f.Module)+")", runs, func(r Run) string {
			if r.Profile == nil || r.Profile.Total == 0 {
				return "—"
			}
			for _, g := range r.Profile.Funcs {
				if g.Function == f.Function && g.Module == f.Module {
					return fmt.Sprintf("%.1f %%", 100*r.Profile.Share(g))
				}
			}
			if n := len(r.Profile.Funcs); r.Profile.Partial && n > 0 {
				return fmt.Sprintf("≤ %.1f %%", 100*r.Profile.Share(r.Profile.Funcs[n-1]))
			}
			return "0.0 %"
		})
	}
	return b.String()
}

func row(b *strings.Builder, label string, runs []Run, val func(Run) string) {
	b.WriteString("| " + label + " |")
	for _, r := range runs {
		b.WriteString(" " + val(r) + " |")
	}
	b.WriteString("\n")
}

// topUnion is every function in some run's top n, by its largest share
// in any run (ties by name).
func topUnion(runs []Run, n int) []Func {
	best := map[[2]string]float64{}
	for _, r := range runs {
		if r.Profile == nil {
			continue
		}
		for i, f := range r.Profile.Funcs {
			if i >= n {
				break
			}
			k := [2]string{f.Function, f.Module}
			best[k] = max(best[k], r.Profile.Share(f))
		}
	}
	out := make([]Func, 0, len(best))
	for k := range best {
		out = append(out, Func{Function: k[0], Module: k[1]})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := best[[2]string{out[i].Function, out[i].Module}], best[[2]string{out[j].Function, out[j].Module}]
		if a != b {
			return a > b
		}
		if out[i].Function != out[j].Function {
			return out[i].Function < out[j].Function
		}
		return out[i].Module < out[j].Module
	})
	return out
}

// cell makes s safe inside a markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
