// Package dashboard wraps grafana-tools/sdk for walab's generated Grafana
// dashboards. The sdk sets no refIds, no stable ids and only the legacy row
// layout, and it lacks stat fieldConfig and the modern heatmap; this
// package fills those gaps so that the generated JSON is deterministic and
// loads in current Grafana: stable uids, refIds A, B, ..., panel ids in
// order, a 24-column grid, one datasource variable, sdk.CustomPanel for
// what the sdk cannot express, and the sdk's JSON rewritten into Grafana's
// current schema (schema.go; dashboards/schema_test.go decodes every board
// strictly with grafana-foundation-sdk).
package dashboard

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/grafana-tools/sdk"
)

// DatasourceUID is the uid of the provisioned Prometheus datasource
// (deploy/grafana/provisioning/datasources/prometheus.yml).
const DatasourceUID = "walab-prometheus"

// Panel geometry on Grafana's 24-column grid.
const (
	gridWidth     = 24
	defaultHeight = 8
)

// datasource points every panel and variable at the dashboard's datasource variable.
var datasource = map[string]string{"type": "prometheus", "uid": "${datasource}"}

// Query is one Prometheus target of a panel.
type Query struct {
	Expr    string
	Legend  string
	Instant bool
}

// Q is shorthand for a range query with a legend.
func Q(expr, legend string) Query { return Query{Expr: expr, Legend: legend} }

// Builder lays panels out left to right, top to bottom.
type Builder struct {
	board  *sdk.Board
	nextID uint
	x, y   int
	rowH   int
}

// New starts a dashboard with a stable uid and the datasource variable.
func New(uid, title string, tags ...string) *Builder {
	b := sdk.NewBoard(title)
	b.ID = 0 // the sdk counts ids package-wide; provisioning needs none
	b.UID = uid
	b.Slug = ""
	b.Tags = append([]string{"walab"}, tags...)
	b.Rows = nil
	b.SchemaVersion = 36
	b.Time = sdk.Time{From: "now-12h", To: "now"}
	b.Timepicker = sdk.Timepicker{RefreshIntervals: []string{"30s", "1m", "5m", "15m", "1h"}, TimeOptions: []string{}}
	refresh := sdk.BoolString{Flag: true, Value: "1m"}
	b.Refresh = &refresh
	b.GraphTooltip = 1 // shared crosshair: compare layers at the same instant
	b.Templating.List = []sdk.TemplateVar{{
		Name:  "datasource",
		Label: "Datasource",
		Type:  "datasource",
		Query: "prometheus",
		Current: sdk.Current{
			Text:  &sdk.StringSliceString{Value: []string{"Prometheus"}, Valid: true},
			Value: DatasourceUID,
		},
		Options: []sdk.Option{},
	}}
	b.Links = []sdk.Link{}
	b.Annotations.List = []sdk.Annotation{}
	return &Builder{board: b, nextID: 1}
}

// Variable adds a query variable over label_values(); multi-select with "All".
func (b *Builder) Variable(name, label, query string) {
	b.board.Templating.List = append(b.board.Templating.List, sdk.TemplateVar{
		Name:       name,
		Label:      label,
		Type:       "query",
		Datasource: datasource,
		Query:      map[string]any{"query": query, "refId": "PrometheusVariableQueryEditor-VariableQuery"},
		Refresh:    sdk.BoolInt{Flag: true, Value: ptr(int64(2))}, // on time range change
		Multi:      true,
		IncludeAll: true,
		AllValue:   ".*",
		Current:    sdk.Current{Text: &sdk.StringSliceString{Value: []string{"All"}, Valid: true}, Value: []string{"$__all"}},
		Options:    []sdk.Option{},
		Sort:       1,
	})
}

// Textbox adds a free-text variable with a default value.
func (b *Builder) Textbox(name, label, def string) {
	b.board.Templating.List = append(b.board.Templating.List, sdk.TemplateVar{
		Name:    name,
		Label:   label,
		Type:    "textbox",
		Query:   def,
		Current: sdk.Current{Text: &sdk.StringSliceString{Value: []string{def}, Valid: true}, Value: def},
		Options: []sdk.Option{{Text: def, Value: def, Selected: true}},
	})
}

// Row starts a new full-width row header.
func (b *Builder) Row(title string) {
	b.newLine()
	p := &sdk.Panel{CommonPanel: sdk.CommonPanel{OfType: sdk.RowType, Type: "row", Title: title},
		RowPanel: &sdk.RowPanel{Panels: []sdk.Panel{}}}
	b.place(p, gridWidth, 1)
	b.newLine()
}

// RepeatRow starts a row that Grafana repeats once per value of variable
// (selected in the board's picker); the panels up to the next row repeat
// with it, and $variable in their queries is that one value.
func (b *Builder) RepeatRow(title, variable string) {
	b.Row(title)
	rows := b.board.Panels
	rows[len(rows)-1].Repeat = ptr(variable)
}

// Timeseries adds a time-series panel of width w.
func (b *Builder) Timeseries(title, unit, description string, w int, qs ...Query) {
	p := sdk.NewTimeseries(title)
	p.TimeseriesPanel.Targets = targets(qs)
	p.TimeseriesPanel.Options = sdk.TimeseriesOptions{
		Legend:  sdk.TimeseriesLegendOptions{Calcs: []string{"lastNotNull", "mean"}, DisplayMode: "table", Placement: "bottom"},
		Tooltip: sdk.TimeseriesTooltipOptions{Mode: "multi"},
	}
	d := &p.TimeseriesPanel.FieldConfig.Defaults
	d.Unit = unit
	d.Color = sdk.FieldConfigColor{Mode: "palette-classic"}
	d.Thresholds = baseThresholds()
	// Grafana's UI defaults: the sdk would otherwise write zeros (lineWidth 0 hides lines).
	c := &d.Custom
	c.AxisPlacement = "auto"
	c.DrawStyle = "line"
	c.FillOpacity = 10
	c.GradientMode = "none"
	c.LineInterpolation = "linear"
	c.LineWidth = 1
	c.PointSize = 5
	c.ShowPoints = "never"
	c.LineStyle.Fill = "solid"
	c.ScaleDistribution.Type = "linear"
	c.Stacking.Group = "A"
	c.Stacking.Mode = "none"
	c.ThresholdsStyle.Mode = "off"
	b.add(p, description, w, defaultHeight)
}

// Stat adds a stat panel (sdk.StatPanel has no fieldConfig: custom JSON).
func (b *Builder) Stat(title, unit, description string, w int, qs ...Query) {
	b.custom("stat", title, description, w, 4, qs, map[string]any{
		"fieldConfig": map[string]any{"defaults": map[string]any{
			"unit": unit, "decimals": 3, "color": map[string]any{"mode": "thresholds"},
			"thresholds": baseThresholds(), "mappings": []any{},
		}, "overrides": []any{}},
		"options": map[string]any{
			"reduceOptions": map[string]any{"calcs": []string{"lastNotNull"}, "fields": "", "values": false},
			"orientation":   "auto", "textMode": "value_and_name", "colorMode": "value",
			"graphMode": "area", "justifyMode": "auto", "wideLayout": true,
			"showPercentChange": false, "percentChangeColorMode": "standard",
		},
	})
}

// Labels adds a stat panel that shows a series' name, for info-style
// metrics whose labels are the message (e.g. the NAND counter source).
func (b *Builder) Labels(title, description string, w int, qs ...Query) {
	b.custom("stat", title, description, w, 4, qs, map[string]any{
		"fieldConfig": map[string]any{"defaults": map[string]any{
			"color": map[string]any{"mode": "fixed", "fixedColor": "blue"}, "thresholds": baseThresholds(), "mappings": []any{},
		}, "overrides": []any{}},
		"options": map[string]any{
			"reduceOptions": map[string]any{"calcs": []string{"lastNotNull"}, "fields": "", "values": false},
			"orientation":   "auto", "textMode": "name", "colorMode": "background", "graphMode": "none", "justifyMode": "auto",
			"wideLayout": true, "showPercentChange": false, "percentChangeColorMode": "standard",
		},
	})
}

// Heatmap adds a Grafana 9+ heatmap of pre-bucketed series (one row per
// series, e.g. per CPU); the sdk only models the pre-9 heatmap.
func (b *Builder) Heatmap(title, unit, description string, w int, qs ...Query) {
	b.custom("heatmap", title, description, w, defaultHeight, qs, map[string]any{
		"fieldConfig": map[string]any{"defaults": map[string]any{"custom": map[string]any{
			"hideFrom":          map[string]bool{"legend": false, "tooltip": false, "viz": false},
			"scaleDistribution": map[string]string{"type": "linear"},
		}}, "overrides": []any{}},
		"options": map[string]any{
			"calculate":    false,
			"cellGap":      1,
			"color":        map[string]any{"mode": "scheme", "scheme": "Oranges", "steps": 64, "exponent": 0.5, "fill": "dark-orange", "reverse": false, "scale": "exponential"},
			"yAxis":        map[string]any{"axisPlacement": "left", "reverse": false, "unit": "short"},
			"rowsFrame":    map[string]any{"layout": "auto"},
			"tooltip":      map[string]any{"mode": "single", "yHistogram": false},
			"legend":       map[string]any{"show": true},
			"cellValues":   map[string]any{"unit": unit},
			"showValue":    "never",
			"exemplars":    map[string]any{"color": "rgba(255,0,255,0.7)"},
			"filterValues": map[string]any{"le": 1e-9},
		},
	})
}

func (b *Builder) custom(kind, title, description string, w, h int, qs []Query, fields map[string]any) {
	p := sdk.NewCustom(title)
	p.Type = kind
	p.Renderer = nil
	cp := sdk.CustomPanel(fields)
	cp["targets"] = targets(qs)
	p.CustomPanel = &cp
	b.add(p, description, w, h)
}

func (b *Builder) add(p *sdk.Panel, description string, w, h int) {
	p.Datasource = datasource
	p.IsNew = false
	p.Span = 0
	if description != "" {
		p.Description = &description
	}
	if b.x+w > gridWidth {
		b.newLine()
	}
	b.place(p, w, h)
}

func (b *Builder) place(p *sdk.Panel, w, h int) {
	p.ID = b.nextID
	b.nextID++
	p.GridPos.X, p.GridPos.Y, p.GridPos.W, p.GridPos.H = ptr(b.x), ptr(b.y), ptr(w), ptr(h)
	b.x += w
	b.rowH = max(b.rowH, h)
	b.board.Panels = append(b.board.Panels, p)
}

func (b *Builder) newLine() {
	if b.x == 0 {
		return
	}
	b.y += b.rowH
	b.x, b.rowH = 0, 0
}

// Board returns the built dashboard.
func (b *Builder) Board() *sdk.Board { return b.board }

// JSON renders the dashboard as indented JSON with a trailing newline.
func (b *Builder) JSON() ([]byte, error) {
	raw, err := json.Marshal(b.board)
	if err == nil {
		raw, err = conform(raw)
	}
	if err != nil {
		return nil, fmt.Errorf("dashboard %s: %w", b.board.UID, err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func targets(qs []Query) []sdk.Target {
	ts := make([]sdk.Target, len(qs))
	for i, q := range qs {
		ts[i] = sdk.Target{
			RefID:        string(rune('A' + i)), // the sdk leaves refId to the caller
			Datasource:   datasource,
			Expr:         q.Expr,
			LegendFormat: q.Legend,
			Instant:      q.Instant,
		}
		if q.Instant {
			ts[i].Format = "table"
		}
	}
	return ts
}

func baseThresholds() sdk.Thresholds {
	return sdk.Thresholds{Mode: "absolute", Steps: []sdk.ThresholdStep{{Color: "green"}}}
}

func ptr[T any](v T) *T { return &v }
