package fleetstack

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStartNamesAMissingProgram: without one of the stack's programs on
// PATH, Start starts nothing and says which one and where it comes from.
// The stack itself runs in test/fleetstack.
func TestStartNamesAMissingProgram(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Start(context.Background(), Config{Dir: t.TempDir(), Engines: []Engine{Thanos}})
	require.ErrorContains(t, err, "vmagent")
	require.ErrorContains(t, err, "scripts/setup.sh installs it")
	require.Equal(t, []string{"vmagent", "vmalert", "prometheus-alertmanager", "victoria-metrics", "thanos"},
		Programs([]Engine{SingleNode, Thanos}))
}
