package alerts

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		wantErr string
		check   func(t *testing.T, c Config)
	}{
		{name: "empty keeps defaults", yaml: "", check: func(t *testing.T, c Config) {
			require.Equal(t, Default(), c)
		}},
		{name: "reference map replaces the default", yaml: "reference_wa: {\"*\": 2.5, nvme1: 1.5}\n", check: func(t *testing.T, c Config) {
			require.Equal(t, map[string]float64{"*": 2.5, "nvme1": 1.5}, c.ReferenceWA)
		}},
		{name: "short window for e2e", yaml: "wa_window: 20s\n", check: func(t *testing.T, c Config) {
			require.Equal(t, "20s", c.WAWindow)
			require.Contains(t, Generate(c).Groups[0].Rules[0].Expr, "[20s]")
		}},
		{name: "unknown key", yaml: "wa_windw: 1h\n", wantErr: "wa_windw"},
		{name: "bad duration", yaml: "wa_window: an hour\n", wantErr: "wa_window"},
		{name: "bad regex", yaml: "target_jobs: \"(\"\n", wantErr: "target_jobs"},
		{name: "no default reference", yaml: "reference_wa: {nvme0: 2}\n", wantErr: "\"*\""},
		{name: "WA below 1", yaml: "reference_wa: {\"*\": 0.5}\n", wantErr: "never below 1"},
		{name: "ratio out of range", yaml: "filesystem_used_max: 85\n", wantErr: "filesystem_used_max"},
		{name: "not a mapping", yaml: "- 1\n", wantErr: "alerts config"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseConfig([]byte(tt.yaml))
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			tt.check(t, c)
		})
	}
}

// FuzzParseConfig: any input gives a config or an error, never a panic, and
// an accepted config generates rules.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("wa_window: 1h\nreference_wa: {\"*\": 3}\n"))
	f.Add([]byte("baseline_offset: 48h\nregression_margin: 0.2\n"))
	f.Add([]byte("{"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseConfig(b)
		if err != nil {
			return
		}
		if len(Generate(c).Groups) == 0 {
			t.Fatal("no groups")
		}
	})
}

// BenchmarkGenerateAndMarshal: the whole rule file from the production config.
func BenchmarkGenerateAndMarshal(b *testing.B) {
	c := Default()
	for b.Loop() {
		if _, err := Generate(c).Marshal(); err != nil {
			b.Fatal(err)
		}
	}
}
