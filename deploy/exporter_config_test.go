package deploy

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/innodb"
	"github.com/walab/walab/internal/nvme/sim"
)

// TestExporterConfig: the compose exporter config decodes strictly with the
// simulator's own loader, so a renamed sim key fails here, not in the lab.
func TestExporterConfig(t *testing.T) {
	f, err := config.Load("exporter/exporter.yml")
	require.NoError(t, err)
	c, err := sim.LoadConfig(f)
	require.NoError(t, err)
	require.Equal(t, "nvmesim0", c.Name)
	var in struct {
		Targets []innodb.TargetConfig `yaml:"targets"`
	}
	require.NoError(t, f.Decode("innodb", &in))
	require.Len(t, in.Targets, 2)
	for _, tg := range in.Targets {
		_, err := tg.Resolve()
		require.NoError(t, err, tg.Name)
	}
}
