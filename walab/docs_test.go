package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDocsIndexLinksEveryDoc: docs/README.md, the index by task, links
// every document in docs/, and the README links the index, so a new doc
// cannot be left reachable from nowhere.
func TestDocsIndexLinksEveryDoc(t *testing.T) {
	index, err := os.ReadFile("../docs/README.md")
	require.NoError(t, err)
	docs, err := filepath.Glob("../docs/*.md")
	require.NoError(t, err)
	require.NotEmpty(t, docs)
	for _, d := range docs {
		name := filepath.Base(d)
		if name == "README.md" {
			continue
		}
		require.Contains(t, string(index), "("+name+")", "docs/README.md does not link %s", name)
	}
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	require.True(t, strings.Contains(string(readme), "(docs/README.md)"), "README.md does not link docs/README.md")
}

// TestDocsFitANewcomersReading: docs/ is at most 250 kB in all (issue 57):
// what a page explains once it explains in one place, and derivations and
// design history live in the code's package comments or bench/RESULTS-*.md.
func TestDocsFitANewcomersReading(t *testing.T) {
	const limit = 250_000
	docs, err := filepath.Glob("../docs/*")
	require.NoError(t, err)
	total := int64(0)
	for _, d := range docs {
		st, err := os.Stat(d)
		require.NoError(t, err)
		total += st.Size()
	}
	require.LessOrEqual(t, total, int64(limit), "docs/ holds %d bytes: say it once, link, or move derivations to package docs", total)
}

// TestDocsHoldNoDatedMeasurements: the docs are reference. A date beside a
// figure (a measurement's day) belongs in bench/RESULTS-*.md with its
// command and machine; a doc keeps the decision and the headline number
// with a link there, and every such link resolves. An RFC 3339 timestamp
// (a date followed by T, in an example of an answer or a flag) is no
// measurement.
func TestDocsHoldNoDatedMeasurements(t *testing.T) {
	date := regexp.MustCompile(`\b20\d\d-[01]\d-[0-3]\d($|[^T\d])`)
	link := regexp.MustCompile(`\(\.\./bench/(RESULTS-[A-Za-z0-9-]+\.md)\)`)
	docs, err := filepath.Glob("../docs/*.md")
	require.NoError(t, err)
	require.NotEmpty(t, docs)
	for _, d := range append(docs, "../README.md") {
		b, err := os.ReadFile(d)
		require.NoError(t, err)
		for i, line := range strings.Split(string(b), "\n") {
			if m := date.FindString(line); m != "" {
				t.Errorf("%s:%d: a dated measurement (%s) belongs in bench/RESULTS-*.md with its command and machine: %s", d, i+1, strings.TrimSpace(m), line)
			}
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			_, err := os.Stat(filepath.Join("../bench", m[1]))
			require.NoError(t, err, "%s links bench/%s", d, m[1])
		}
	}
}

// TestLayoutListsEveryPackage: docs/layout.md names every package of the
// module by its path (every directory with Go files, as `go list ./...`
// finds them), so a new package cannot be left out of the map.
func TestLayoutListsEveryPackage(t *testing.T) {
	layout, err := os.ReadFile("../docs/layout.md")
	require.NoError(t, err)
	pkgs := modulePackages(t, "..")
	require.Contains(t, pkgs, "internal/experiment/plan")
	for _, p := range pkgs {
		named := regexp.MustCompile(`(^|[^\w/.-])` + regexp.QuoteMeta(p) + `/?($|[^\w/-])`)
		if !named.Match(layout) {
			t.Errorf("docs/layout.md does not list the package %s", p)
		}
	}
}

// modulePackages is every directory under root holding a .go file, as a
// slash path relative to root; the go tool's rules: testdata and names
// starting with . or _ are skipped.
func modulePackages(t *testing.T, root string) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			seen[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	require.NoError(t, err)
	pkgs := make([]string, 0, len(seen))
	for p := range seen {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	return pkgs
}
