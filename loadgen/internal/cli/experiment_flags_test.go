package cli

import (
	"maps"
	"slices"
	"testing"

	"github.com/alecthomas/kingpin/v2"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment/loadgenargs"
	"github.com/walab/walab/internal/workload"
)

// TestExperimentKnowsLoadgenFlags: walab experiment validates a plan's
// loadgen arguments against loadgenargs.Flags and the workloads'
// own flags; the list must be this parser's flags besides the workloads'
// and the sysbench spellings NormalizeArgs and sysbenchTPCC accept.
func TestExperimentKnowsLoadgenFlags(t *testing.T) {
	f := &flags{runFS: &workload.FlagSet{}}
	app := kingpin.New("loadgen", "")
	defineRunFlags(f.runFS, &f.run)
	bindFlags(app, f.runFS)
	defineFlags(app, f)
	names := map[string]bool{"help": true, "test": true, "scale": true, "tables": true}
	for _, fl := range app.Model().Flags {
		names[fl.Name] = true
	}
	for n := range legacyNames {
		names[n] = true
	}
	require.Equal(t, slices.Sorted(maps.Keys(names)), loadgenargs.Flags)
}
