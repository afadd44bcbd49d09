package dashboard

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// PanelQuery is one Prometheus expression of a generated dashboard, as the
// e2e test and the lint test read them back from the JSON.
type PanelQuery struct {
	Board, Panel, RefID, Expr string
}

// Queries extracts every panel target expression from dashboard JSON,
// including panels nested in collapsed rows. Malformed JSON is an error.
func Queries(b []byte) ([]PanelQuery, error) {
	var d struct {
		UID    string      `json:"uid"`
		Panels []jsonPanel `json:"panels"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("dashboard JSON: %w", err)
	}
	var out []PanelQuery
	var walk func(ps []jsonPanel)
	walk = func(ps []jsonPanel) {
		for _, p := range ps {
			for _, t := range p.Targets {
				if t.Expr != "" {
					out = append(out, PanelQuery{Board: d.UID, Panel: p.Title, RefID: t.RefID, Expr: t.Expr})
				}
			}
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	return out, nil
}

type jsonPanel struct {
	Title   string      `json:"title"`
	Targets []jsonTgt   `json:"targets"`
	Panels  []jsonPanel `json:"panels"`
}

type jsonTgt struct {
	RefID string `json:"refId"`
	Expr  string `json:"expr"`
}

// Expand replaces Grafana variables ($name, ${name}) in expr with the given
// values, longest names first so $device never eats $device_x.
func Expand(expr string, vars map[string]string) string {
	names := make([]string, 0, len(vars))
	for k := range vars {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
	for _, n := range names {
		expr = strings.ReplaceAll(expr, "${"+n+"}", vars[n])
		expr = strings.ReplaceAll(expr, "$"+n, vars[n])
	}
	return expr
}

// TestVars are values for the variables walab's boards use, for running
// panel queries outside Grafana: match-all selectors and short ranges.
func TestVars(rateInterval string) map[string]string {
	return map[string]string{
		"instance": ".*", "device": ".*", "target": ".*", "blockdev": ".*", "array": ".*",
		"__rate_interval": rateInterval, "__interval": rateInterval,
		"baseline_offset": rateInterval,
	}
}
