package golden

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// recorder is a testing.TB that records a failure instead of stopping the test.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) FailNow()              { r.failed = true; panic(r) }
func (r *recorder) Helper()               {}

func assertFails(t *testing.T, f func(tb testing.TB)) {
	t.Helper()
	r := &recorder{TB: t}
	func() {
		defer func() {
			if v := recover(); v != nil && v != any(r) {
				panic(v)
			}
		}()
		f(r)
	}()
	require.True(t, r.failed, "expected the golden comparison to fail")
}

func TestAssert(t *testing.T) {
	if Update() {
		t.Skip("-update rewrites files; this test checks comparison")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "a.golden")
	require.NoError(t, os.WriteFile(p, []byte("same\n"), 0o644))
	Assert(t, p, []byte("same\n"))
	assertFails(t, func(tb testing.TB) { Assert(tb, p, []byte("different\n")) })
	assertFails(t, func(tb testing.TB) { Assert(tb, filepath.Join(dir, "missing"), []byte("x")) })

	j := filepath.Join(dir, "v.json")
	require.NoError(t, os.WriteFile(j, []byte("{\n  \"A\": 1\n}\n"), 0o644))
	AssertJSON(t, j, struct{ A int }{1})
	assertFails(t, func(tb testing.TB) { AssertJSON(tb, j, struct{ A int }{2}) })
}
