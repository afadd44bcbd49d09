package compare_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The package's layers, by file name (doc.go says what each holds).
const (
	judging   = "judging"   // judge_*.go, options.go, result.go: plain values in, figures and checks out
	reading   = "reading"   // read_*.go: the store's HTTP API
	rendering = "rendering" // render_*.go: text, CSV, JSON, PNG, HTML
	pipeline  = "pipeline"  // compare.go, doc.go: Compare, which calls all three
)

// uses is what each layer may use of the package: judging only itself,
// reading and rendering judging and themselves, the pipeline everything.
var uses = map[string][]string{
	judging:   {judging},
	reading:   {judging, reading},
	rendering: {judging, rendering},
	pipeline:  {judging, reading, rendering, pipeline},
}

// judgeOrder is the judging layer's files, bottom first: plain figures
// (tables, intervals, steady state) at the bottom, the judged vocabulary
// (verdict, run facts) above them, then the options and the result that
// hold it, the window selection, the checks by family (the rounds, the
// drive, the load) on the judgement they add to, and on top their one list
// with the judge that runs it. The doc files (no code) sit below all.
var judgeOrder = []string{
	"judge_doc_confidence.go", "judge_doc_rates.go", "judge_doc_rounds.go",
	"judge_finite.go", "judge_table.go", "judge_raid.go", "judge_rounds.go",
	"judge_autobatch.go", "judge_interval.go", "judge_steady.go", "judge_trend.go",
	"judge_throughput.go", "judge_verdict.go", "judge_facts.go",
	"options.go", "result.go", "judge_window.go",
	"judge_judgement.go", "judge_checks_rounds.go", "judge_checks_drive.go", "judge_checks_load.go",
	"judge_checks.go",
}

// readOrder is the reading layer's files, bottom first: the Source and its
// queries, the per-round tables (a device's, then an array's), the facts
// by family under Facts, and on top the run reader, which picks the
// device's or the array's table.
var readOrder = []string{
	"read_answers.go", "read_source.go", "read_spans.go", "read_hosts.go",
	"read_table.go", "read_array_queries.go", "read_array.go", "read_array_facts.go",
	"read_capped.go", "read_window.go", "read_facts_block.go", "read_facts_drive.go",
	"read_facts_rounds.go", "read_facts_targets.go", "read_facts.go",
	"read_throughput.go", "read_run.go",
}

// orders are the layers whose files build on each other in one order: a
// file uses only itself and the files before it, so no arrow inside the
// layer runs back up, and a new file must be placed.
var orders = map[string][]string{judging: judgeOrder, reading: readOrder}

func layerOf(file string) string {
	switch base := filepath.Base(file); {
	case strings.HasPrefix(base, "judge_"), base == "options.go", base == "result.go":
		return judging
	case strings.HasPrefix(base, "read_"):
		return reading
	case strings.HasPrefix(base, "render_"):
		return rendering
	case base == "compare.go", base == "doc.go":
		return pipeline
	}
	return ""
}

// TestLayering holds compare's three layers apart, and the judging and
// reading layers' files in their orders: every file is in one,
// judging and rendering import no Prometheus or HTTP package, and no file
// uses a declaration of a layer it may not (the type checker resolves
// every name, so a judging file cannot call the reader through a helper
// of its own package either).
func TestLayering(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	var parsed []*ast.File
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		require.NotEmpty(t, layerOf(name), "%s: name the file by its layer (judge_, read_, render_)", name)
		if order, ok := orders[layerOf(name)]; ok {
			require.Contains(t, order, name, "%s: place the file in its layer's order, above the files it uses", name)
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		parsed = append(parsed, f)
		if l := layerOf(name); l == judging || l == rendering {
			for _, imp := range f.Imports {
				p := strings.Trim(imp.Path.Value, `"`)
				require.False(t, strings.HasPrefix(p, "github.com/prometheus/") || strings.HasPrefix(p, "net/http"),
					"%s (%s) imports %s: only the reading layer talks to the store", name, l, p)
			}
		}
	}
	// Type-check against the dependencies' export data, built by go list.
	out, err := exec.Command("go", "list", "-deps", "-export", "-f", "{{.ImportPath}}\t{{.Export}}", ".").Output()
	require.NoError(t, err)
	exports := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, file, ok := strings.Cut(line, "\t"); ok {
			exports[path] = file
		}
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exports[path])
	})}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	pkg, err := conf.Check("compare", fset, parsed, info)
	require.NoError(t, err)
	n := 0
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg || !obj.Pos().IsValid() || obj.Parent() != nil && obj.Parent() != pkg.Scope() {
			continue // another package's, or a local name
		}
		from, decl := fset.Position(id.Pos()).Filename, fset.Position(obj.Pos()).Filename
		n++
		if !slices.Contains(uses[layerOf(from)], layerOf(decl)) {
			t.Errorf("%s (%s) uses %s of %s (%s)", fset.Position(id.Pos()), layerOf(from), id.Name, decl, layerOf(decl))
		}
		if order := orders[layerOf(from)]; layerOf(decl) == layerOf(from) && slices.Index(order, decl) > slices.Index(order, from) {
			t.Errorf("%s uses %s of %s, which its layer's order puts above it", fset.Position(id.Pos()), id.Name, decl)
		}
	}
	require.Greater(t, n, 100, "the check saw the package's own names")
}
