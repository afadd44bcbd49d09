package dashboard

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func sample() *Builder {
	b := New("uid-x", "X", "t")
	b.Variable("device", "Device", "label_values(walab_nvme_up, device)")
	b.Row("first")
	b.Stat("s", "none", "", 6, Q("up", "{{job}}"))
	b.Timeseries("ts", "bytes", "why", 12, Q("a", "A"), Q("b", "B"), Q("c", "C"))
	b.Heatmap("hm", "short", "", 12, Q("h", "{{cpu}}"))
	b.Labels("l", "", 6, Query{Expr: "walab_nvme_info", Instant: true})
	return b
}

func TestBuilderLayoutAndIDs(t *testing.T) {
	raw, err := sample().JSON()
	require.NoError(t, err)
	var d struct {
		UID    string `json:"uid"`
		ID     *int   `json:"id"`
		Panels []struct {
			ID      int    `json:"id"`
			Type    string `json:"type"`
			GridPos struct{ X, Y, W, H int }
			Targets []struct {
				RefID      string            `json:"refId"`
				Datasource map[string]string `json:"datasource"`
			} `json:"targets"`
			FieldConfig *struct {
				Defaults struct {
					Unit string `json:"unit"`
				} `json:"defaults"`
			} `json:"fieldConfig"`
		} `json:"panels"`
	}
	require.NoError(t, json.Unmarshal(raw, &d))
	require.Equal(t, "uid-x", d.UID)
	require.Nil(t, d.ID, "no numeric id: provisioning assigns it")

	type want struct {
		typ        string
		x, y, w, h int
		refIDs     []string
		unit       string
	}
	wants := []want{
		{"row", 0, 0, 24, 1, nil, ""},
		{"stat", 0, 1, 6, 4, []string{"A"}, "none"},
		{"timeseries", 6, 1, 12, 8, []string{"A", "B", "C"}, "bytes"},
		{"heatmap", 0, 9, 12, 8, []string{"A"}, ""}, // did not fit beside: new line
		{"stat", 12, 9, 6, 4, []string{"A"}, ""},
	}
	require.Len(t, d.Panels, len(wants))
	for i, w := range wants {
		p := d.Panels[i]
		require.Equal(t, i+1, p.ID)
		require.Equal(t, w.typ, p.Type)
		require.Equal(t, []int{w.x, w.y, w.w, w.h}, []int{p.GridPos.X, p.GridPos.Y, p.GridPos.W, p.GridPos.H}, "panel %d", i)
		var refs []string
		for _, tg := range p.Targets {
			refs = append(refs, tg.RefID)
			require.Equal(t, "${datasource}", tg.Datasource["uid"])
		}
		require.Equal(t, w.refIDs, refs, "panel %d", i)
		if w.unit != "" {
			require.NotNil(t, p.FieldConfig)
			require.Equal(t, w.unit, p.FieldConfig.Defaults.Unit)
		}
	}
}

func TestJSONDeterministic(t *testing.T) {
	a, err := sample().JSON()
	require.NoError(t, err)
	b, err := sample().JSON()
	require.NoError(t, err)
	require.Equal(t, string(a), string(b))
}

func TestQueries(t *testing.T) {
	raw, err := sample().JSON()
	require.NoError(t, err)
	qs, err := Queries(raw)
	require.NoError(t, err)
	require.Equal(t, []PanelQuery{
		{"uid-x", "s", "A", "up"},
		{"uid-x", "ts", "A", "a"}, {"uid-x", "ts", "B", "b"}, {"uid-x", "ts", "C", "c"},
		{"uid-x", "hm", "A", "h"},
		{"uid-x", "l", "A", "walab_nvme_info"},
	}, qs)

	nested := []byte(`{"uid":"n","panels":[{"type":"row","title":"r","panels":[{"title":"in","targets":[{"refId":"A","expr":"x"}]}]}]}`)
	qs, err = Queries(nested)
	require.NoError(t, err)
	require.Equal(t, []PanelQuery{{"n", "in", "A", "x"}}, qs)

	_, err = Queries([]byte(`{"panels": 3}`))
	require.ErrorContains(t, err, "dashboard JSON")
}

func TestExpand(t *testing.T) {
	tests := []struct{ in, want string }{
		{`up{device=~"$device"}`, `up{device=~".*"}`},
		{`rate(x[$__rate_interval])`, `rate(x[30s])`},
		{`x offset ${baseline_offset}`, `x offset 30s`},
		{`no vars`, `no vars`},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, Expand(tt.in, TestVars("30s")))
	}
}

// FuzzQueries: arbitrary bytes never panic the JSON reader.
func FuzzQueries(f *testing.F) {
	raw, err := sample().JSON()
	require.NoError(f, err)
	f.Add(raw)
	f.Add([]byte(`{"panels":[{"panels":[{"targets":[{"expr":"x"}]}]}]}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, b []byte) {
		qs, err := Queries(b)
		if err != nil && qs != nil {
			t.Fatal("queries with an error")
		}
		for _, q := range qs {
			if q.Expr == "" {
				t.Fatal("empty expression returned")
			}
		}
	})
}
