package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/alerts"
	"github.com/walab/walab/internal/dashboard"
	"github.com/walab/walab/internal/promql"
)

var (
	metricName = regexp.MustCompile(`\bwalab_[a-z0-9_]+\b`)
	// Recording-rule names (level:metric:operations) are not exporter metrics.
	recordingRule = regexp.MustCompile(`[a-zA-Z_][a-zA-Z0-9_]*:[a-zA-Z0-9_:]+`)
)

// documented reports whether docs/metrics.md lists name, either literally
// or in an abbreviated row such as "walab_filesystem_size_bytes / _used_bytes".
func documented(doc []string, name string) bool {
	base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")
	for _, line := range doc {
		cell := strings.SplitN(strings.TrimPrefix(line, "| "), " |", 2)[0]
		parts := regexp.MustCompile(`\s*[/,]\s*`).Split(cell, -1)
		for _, p := range parts {
			if p == name || p == base {
				return true
			}
		}
		// The row's stem is its first name without as many trailing words as
		// its longest "_suffix" has ("walab_nvme_streams" + "_open").
		words := 0
		for _, suffix := range parts[1:] {
			if strings.HasPrefix(suffix, "_") {
				words = max(words, strings.Count(suffix, "_"))
			}
		}
		first := strings.Split(parts[0], "_")
		if words == 0 || words >= len(first) {
			continue
		}
		stem := strings.Join(first[:len(first)-words], "_")
		for _, suffix := range parts[1:] {
			if strings.HasPrefix(suffix, "_") && base == stem+suffix {
				return true
			}
		}
	}
	return false
}

// TestMetricsAreInTheContract: every walab_ metric the dashboards and the
// rules read is a row of docs/metrics.md (recording rules have colons and
// are not matched).
func TestMetricsAreInTheContract(t *testing.T) {
	b, err := os.ReadFile("../docs/metrics.md")
	require.NoError(t, err)
	doc := strings.Split(string(b), "\n")

	used := map[string]string{}
	for _, bd := range boards() {
		raw, err := bd.build().JSON()
		require.NoError(t, err)
		qs, err := dashboard.Queries(raw)
		require.NoError(t, err)
		for _, q := range qs {
			for _, m := range metricName.FindAllString(recordingRule.ReplaceAllString(q.Expr, ""), -1) {
				used[m] = q.Board + "/" + q.Panel
			}
		}
	}
	cfg, err := alerts.LoadConfig("../alerts/config.yml")
	require.NoError(t, err)
	for _, g := range alerts.Generate(cfg).Groups {
		for _, r := range g.Rules {
			for _, m := range metricName.FindAllString(recordingRule.ReplaceAllString(r.Expr, ""), -1) {
				used[m] = "rule " + r.Record + r.Alert
			}
		}
	}
	var missing []string
	for m, where := range used {
		if !documented(doc, m) {
			missing = append(missing, m+" ("+where+")")
		}
	}
	sort.Strings(missing)
	require.Empty(t, missing, "not in docs/metrics.md")
}

func TestDocumented(t *testing.T) {
	doc := []string{
		"| walab_filesystem_size_bytes / _used_bytes / _avail_bytes | gauge | path | x |",
		"| walab_nvme_streams_max_limit / _subsystem_available / _open | gauge | device | |",
		"| walab_loadgen_transaction_duration_seconds | histogram | target | |",
		"| walab_innodb_data_writes_total, walab_innodb_data_fsyncs_total | counter | target | |",
	}
	for name, want := range map[string]bool{
		"walab_filesystem_used_bytes":                       true,
		"walab_nvme_streams_open":                           true,
		"walab_loadgen_transaction_duration_seconds_bucket": true,
		"walab_innodb_data_fsyncs_total":                    true,
		"walab_filesystem_free_bytes":                       false,
		"walab_nvme_open":                                   false,
	} {
		require.Equal(t, want, documented(doc, name), name)
	}
}

// TestReadBackNamesAreInTheContract: every metric name walab compare, the
// experiment's checks and the fingerprint read (internal/promql, their one
// owner) is a row of docs/metrics.md, and those packages spell no metric
// name of their own in a string: a query that decides VALID reads only
// contract metrics.
func TestReadBackNamesAreInTheContract(t *testing.T) {
	b, err := os.ReadFile("../docs/metrics.md")
	require.NoError(t, err)
	doc := strings.Split(string(b), "\n")
	var missing []string
	for _, m := range promql.Names() {
		if !documented(doc, m) {
			missing = append(missing, m)
		}
	}
	require.Empty(t, missing, "not in docs/metrics.md")

	for _, dir := range []string{"../internal/compare", "../internal/experiment", "../internal/experiment/plan", "../internal/experiment/state", "../internal/experiment/report", "../internal/experiment/check", "../internal/fingerprint"} {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
		require.NoError(t, err)
		for _, pkg := range pkgs {
			for _, f := range pkg.Files {
				ast.Inspect(f, func(n ast.Node) bool {
					if fld, ok := n.(*ast.Field); ok {
						return fld.Tag == nil // struct tags name JSON keys, not metrics
					}
					lit, ok := n.(*ast.BasicLit)
					if ok && lit.Kind == token.STRING {
						require.Empty(t, metricName.FindAllString(lit.Value, -1), "%s: a metric name spelled outside internal/promql", fset.Position(lit.Pos()))
					}
					return true
				})
			}
		}
	}
}
