package experiment

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// mayImport is the experiment's order of packages: each may import only
// the experiment packages listed for it (the executor, this package, all
// of them). A package not listed here fails the test: place it first.
var mayImport = map[string][]string{
	"internal/experiment/plan":        {},
	"internal/experiment/loadgenargs": {},
	"internal/experiment/state":       {"internal/experiment/plan"},
	"internal/experiment/check":       {"internal/experiment/plan", "internal/experiment/state"},
	"internal/experiment/report":      {"internal/experiment/plan", "internal/experiment/state"},
	"internal/experiment":             {"internal/experiment/plan", "internal/experiment/loadgenargs", "internal/experiment/state", "internal/experiment/check", "internal/experiment/report"},
}

// TestLayering holds the order: the plan knows nothing of the executor
// (the check kinds and loadgen's rules reach its validation as values),
// and no package
// imports one above it. go list resolves the imports, so a new package
// or import is checked without editing the test.
func TestLayering(t *testing.T) {
	const mod = "github.com/walab/walab/"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...").Output()
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, len(mayImport), "every experiment package has its place in mayImport:\n%s", out)
	for _, line := range lines {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], mod)
		allowed, ok := mayImport[pkg]
		require.True(t, ok, "%s: not in mayImport", pkg)
		for _, imp := range f[1:] {
			if p, ok := strings.CutPrefix(imp, mod+"internal/experiment"); ok && (p == "" || strings.HasPrefix(p, "/")) {
				require.True(t, slices.Contains(allowed, "internal/experiment"+p), "%s imports %s, which is not below it", pkg, imp)
			}
		}
	}
}
