package innodb

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMetricsDocumented: every metric this package describes
// (namespace+"_name") is named in docs/metrics.md.
// walab_innodb_buffer_pool_size_bytes was not (issue 56).
func TestMetricsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/metrics.md")
	require.NoError(t, err)
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	desc := regexp.MustCompile(`namespace\+"(_[a-z0-9_]+)"`)
	var names, missing []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range desc.FindAllStringSubmatch(string(b), -1) {
			name := "walab" + m[1]
			names = append(names, name)
			if !regexp.MustCompile(`\b` + name + `\b`).Match(doc) {
				missing = append(missing, name)
			}
		}
	}
	require.NotEmpty(t, names)
	require.Empty(t, missing, "not in docs/metrics.md")
}
