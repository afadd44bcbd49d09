package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	sdkdash "github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBoardsMatchGrafanaSchema decodes every generated dashboard with
// grafana-foundation-sdk's strict decoder: Grafana's own schema for the
// dashboard, each panel type's options and field config (plugins register
// them), and each datasource's query. An unknown panel type, field or
// query field fails here instead of being dropped by Grafana at load time.
func TestBoardsMatchGrafanaSchema(t *testing.T) {
	plugins.RegisterDefaultPlugins()
	for _, bd := range boards() {
		raw, err := bd.build().JSON()
		require.NoError(t, err)
		assert.NoError(t, strictDecode(raw), bd.file)
	}
}

// TestStrictDecodeRejects: the decoder the test above relies on does fail
// on what it must catch.
func TestStrictDecodeRejects(t *testing.T) {
	plugins.RegisterDefaultPlugins()
	raw, err := boards()[0].build().JSON()
	require.NoError(t, err)
	var d map[string]any
	require.NoError(t, json.Unmarshal(raw, &d))
	panels := d["panels"].([]any)
	var ts map[string]any
	for _, p := range panels {
		if p.(map[string]any)["type"] == "timeseries" {
			ts = p.(map[string]any)
			break
		}
	}
	require.NotNil(t, ts, "a timeseries panel to break")
	for name, breakIt := range map[string]func(p map[string]any) (undo func()){
		"unknown panel field": func(p map[string]any) func() {
			p["isNew"] = true
			return func() { delete(p, "isNew") }
		},
		"unknown field config field": func(p map[string]any) func() {
			c := p["fieldConfig"].(map[string]any)["defaults"].(map[string]any)["custom"].(map[string]any)
			c["lineWidthh"] = 1
			return func() { delete(c, "lineWidthh") }
		},
		"unknown datasource ref field": func(p map[string]any) func() {
			ds := p["datasource"].(map[string]any)
			ds["name"] = "x"
			return func() { delete(ds, "name") }
		},
		"unknown query field": func(p map[string]any) func() {
			q := p["targets"].([]any)[0].(map[string]any)
			q["exprr"] = "up"
			return func() { delete(q, "exprr") }
		},
		"not a Prometheus datasource": func(p map[string]any) func() {
			ds := p["datasource"].(map[string]any)
			ds["type"] = "loki"
			return func() { ds["type"] = "prometheus" }
		},
		"unknown panel type": func(p map[string]any) func() {
			p["type"] = "walab-no-such-panel"
			return func() { p["type"] = "timeseries" }
		},
	} {
		undo := breakIt(ts)
		b, err := json.Marshal(d)
		require.NoError(t, err)
		assert.Error(t, strictDecode(b), name)
		undo()
	}
	b, err := json.Marshal(d)
	require.NoError(t, err)
	require.NoError(t, strictDecode(b), "the board itself decodes")
}

// strictDecode decodes a dashboard strictly, then each panel on its own
// (v0.0.22 drops a panel that decodes without error from Dashboard.Panels:
// its decoders return an empty cog.BuildErrors, a non-nil error, for
// none), and checks what the decoder lets through: a panel type without a
// registered schema (decoded as raw options), and a datasource or query
// that is not Prometheus (decoded without its query schema).
func strictDecode(raw []byte) error {
	var d sdkdash.Dashboard
	if err := noErrors(d.UnmarshalJSONStrict(raw)); err != nil {
		return err
	}
	var top struct{ Panels []json.RawMessage }
	if err := json.Unmarshal(raw, &top); err != nil {
		return err
	}
	for i, pr := range top.Panels {
		var kind struct{ Type string }
		if err := json.Unmarshal(pr, &kind); err != nil {
			return err
		}
		if kind.Type == "row" {
			var row sdkdash.RowPanel
			if err := noErrors(row.UnmarshalJSONStrict(pr)); err != nil {
				return fmt.Errorf("panels[%d]: %w", i, err)
			}
			continue
		}
		var p sdkdash.Panel
		if err := noErrors(p.UnmarshalJSONStrict(pr)); err != nil {
			return fmt.Errorf("panels[%d]: %w", i, err)
		}
		if err := knownPanel(p); err != nil {
			return fmt.Errorf("panels[%d]: %w", i, err)
		}
	}
	return nil
}

func knownPanel(p sdkdash.Panel) error {
	if _, ok := cog.ConfigForPanelcfgVariant(p.Type); !ok {
		return fmt.Errorf("panel type %q has no schema in grafana-foundation-sdk", p.Type)
	}
	if p.Datasource == nil || p.Datasource.Type == nil || *p.Datasource.Type != "prometheus" {
		return fmt.Errorf("datasource %+v is not a Prometheus reference", p.Datasource)
	}
	for i, q := range p.Targets {
		if _, ok := q.(*prometheus.Dataquery); !ok {
			return fmt.Errorf("target %d decoded as %T, not a Prometheus query", i, q)
		}
	}
	return nil
}

// noErrors maps v0.0.22's empty cog.BuildErrors to nil.
func noErrors(err error) error {
	var be cog.BuildErrors
	if errors.As(err, &be) && len(be) == 0 {
		return nil
	}
	return err
}
