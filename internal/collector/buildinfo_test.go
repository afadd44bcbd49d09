package collector

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/buildinfo"
)

// TestBuildInfo: one series, value 1, labels the binary's identity.
func TestBuildInfo(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(BuildInfo())
	mfs, err := reg.Gather()
	require.NoError(t, err)
	require.Len(t, mfs, 1)
	require.Equal(t, BuildInfoName, mfs[0].GetName())
	require.Len(t, mfs[0].Metric, 1)
	m := mfs[0].Metric[0]
	require.Equal(t, 1.0, m.GetGauge().GetValue())
	in := buildinfo.Get()
	want := map[string]string{"version": in.Version, "revision": in.Commit(), "goversion": in.GoVersion}
	got := map[string]string{}
	for _, l := range m.Label {
		got[l.GetName()] = l.GetValue()
	}
	require.Equal(t, want, got)
}
