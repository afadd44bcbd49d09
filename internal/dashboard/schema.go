package dashboard

import (
	"bytes"
	"encoding/json"
)

// conform rewrites grafana-tools/sdk's JSON into Grafana's current
// dashboard schema (the one grafana-foundation-sdk decodes strictly;
// dashboards/schema_test.go): the sdk writes fields of the pre-7 dashboard
// that the schema no longer has, and leaves out options the schema
// requires of the panels it models.
func conform(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers pass through as written
	var d map[string]any
	if err := dec.Decode(&d); err != nil {
		return nil, err
	}
	for _, f := range legacyBoardFields {
		delete(d, f)
	}
	if tp, ok := d["timepicker"].(map[string]any); ok {
		delete(tp, "time_options") // gone from the schema; Grafana never read it
	}
	if tm, ok := d["templating"].(map[string]any); ok {
		for _, v := range list(tm["list"]) {
			delete(v, "allFormat")
			delete(v, "multiFormat")
			if _, isBool := v["refresh"].(bool); isBool {
				delete(v, "refresh") // the sdk's false for a variable it never refreshes; the schema wants 0, 1 or 2
			}
		}
	}
	for _, p := range list(d["panels"]) {
		conformPanel(p)
	}
	return json.Marshal(d)
}

// legacyBoardFields are the sdk's pre-7 dashboard fields, absent from the
// schema: rows (panels carry rows now), sharedCrosshair (graphTooltip),
// hideControls, originalTitle, slug and style.
var legacyBoardFields = []string{"hideControls", "originalTitle", "rows", "sharedCrosshair", "slug", "style"}

// legacyPanelFields are the sdk's pre-7 panel fields, absent from the schema.
var legacyPanelFields = []string{"editable", "error", "isNew", "span"}

func conformPanel(p map[string]any) {
	for _, f := range legacyPanelFields {
		delete(p, f)
	}
	switch p["type"] {
	case "row":
		delete(p, "transparent") // a row has no background to hide
		for _, c := range list(p["panels"]) {
			conformPanel(c)
		}
	case "timeseries":
		opts, _ := p["options"].(map[string]any)
		if tooltip, ok := opts["tooltip"].(map[string]any); ok {
			setDefault(tooltip, "sort", "none")
		}
		if legend, ok := opts["legend"].(map[string]any); ok {
			setDefault(legend, "showLegend", true)
		}
	}
}

func setDefault(m map[string]any, key string, v any) {
	if _, ok := m[key]; !ok {
		m[key] = v
	}
}

// list is a JSON array's objects.
func list(v any) []map[string]any {
	arr, _ := v.([]any)
	out := make([]map[string]any, 0, len(arr))
	for _, e := range arr {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}
