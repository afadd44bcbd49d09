package sim

import (
	"encoding/hex"
	"path/filepath"
	"testing"
	"time"

	"github.com/walab/walab/internal/golden"

	"github.com/walab/walab/internal/nvme/admin"
)

// TestPagesGolden pins every page byte for byte (hex dumps under
// testdata/pages; regenerate with -update), so a layout change shows up as
// a reviewed diff rather than only through the decoders.
func TestPagesGolden(t *testing.T) {
	cfg := smallConfig()
	cfg.FDP = true
	_, clk, dev := newDrive(t, cfg)
	clk.Add(30 * time.Second)
	pages := map[string]admin.Command{
		"identify-controller": admin.Identify(admin.CNSController, 0),
		"identify-namespace":  admin.Identify(admin.CNSNamespace, 1),
		"smart":               mustLP(t, admin.LogPage{LID: 0x02, NSID: admin.NSIDAll, Len: 512}),
		"ocp-c0":              mustLP(t, admin.LogPage{LID: 0xC0, NSID: admin.NSIDAll, Len: 512}),
		"endurance-group":     mustLP(t, admin.LogPage{LID: 0x09, LSI: 1, Len: 512}),
		"fdp-configs":         mustLP(t, admin.LogPage{LID: 0x20, LSI: 1, Len: 128}),
		"fdp-usage":           mustLP(t, admin.LogPage{LID: 0x21, LSI: 1, Len: 64}),
		"fdp-stats":           mustLP(t, admin.LogPage{LID: 0x22, LSI: 1, Len: 64}),
		"directives-identify": mustDR(t, 0, 1, 128),
		"streams-params":      mustDR(t, 1, 1, 32),
		"streams-status":      mustDR(t, 1, 2, 32),
	}
	for name, cmd := range pages {
		t.Run(name, func(t *testing.T) {
			got := hex.Dump(submit(t, dev, cmd))
			golden.Assert(t, filepath.Join("testdata", "pages", name+".hex"), []byte(got))
		})
	}
}
