package release

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// gitRepo makes a repository with one commit dated at, holding VERSION.
func gitRepo(t *testing.T, version string, at time.Time) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "VERSION"), []byte(version), 0o644))
	date := at.Format(time.RFC3339)
	for _, args := range [][]string{{"init", "-q"}, {"add", "VERSION"},
		{"-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", "v"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_COMMITTER_DATE="+date, "GIT_AUTHOR_DATE="+date)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	return dir
}

// TestReadSource: the version is the VERSION file's, the build date the
// commit's (not the author's, not now), SOURCE_DATE_EPOCH wins, and a
// changed work tree is seen.
func TestReadSource(t *testing.T) {
	at := time.Date(2026, 12, 6, 8, 57, 19, 0, time.UTC)
	dir := gitRepo(t, "0.1.0\n", at)
	t.Setenv("SOURCE_DATE_EPOCH", "")
	s, err := ReadSource(context.Background(), dir)
	require.NoError(t, err)
	require.Equal(t, "0.1.0", s.Version)
	require.Len(t, s.Revision, 40)
	require.Equal(t, at, s.Date)
	require.False(t, s.Modified)
	require.Contains(t, s.LDFlags(), "buildinfo.date=20261206-08:57:19")
	require.NotContains(t, s.LDFlags(), "modified")

	t.Setenv("SOURCE_DATE_EPOCH", "1000000000")
	s, err = ReadSource(context.Background(), dir)
	require.NoError(t, err)
	require.Equal(t, time.Unix(1e9, 0).UTC(), s.Date)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "new.go"), nil, 0o644))
	s, err = ReadSource(context.Background(), dir)
	require.NoError(t, err)
	require.True(t, s.Modified, "an untracked file is built too")
	require.Contains(t, s.LDFlags(), "buildinfo.modified=true")
	_, err = Dist(context.Background(), s, Options{Out: t.TempDir()})
	require.ErrorIs(t, err, ErrModified)

	t.Setenv("SOURCE_DATE_EPOCH", "yesterday")
	_, err = ReadSource(context.Background(), dir)
	require.ErrorContains(t, err, "yesterday")
}

func TestReadSourceRefusesABadVersion(t *testing.T) {
	for _, v := range []string{"v0.1.0", "0.1", "0.1.0-rc1", ""} {
		dir := gitRepo(t, v, time.Unix(0, 0))
		_, err := ReadSource(context.Background(), dir)
		require.ErrorContains(t, err, "VERSION", v)
	}
	_, err := ReadSource(context.Background(), t.TempDir())
	require.Error(t, err, "no VERSION file")
}

// TestBuildIsReproducible builds the exporter for arm64 twice, into
// directories of different names, and gets the same bytes; the binary
// says the version and date it was given.
func TestBuildIsReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the exporter twice")
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	s := Source{Root: root, Version: "9.8.7", Revision: strings.Repeat("ab", 20), Date: time.Date(2026, 12, 6, 8, 57, 19, 0, time.UTC)}
	a, b := filepath.Join(t.TempDir(), "one"), filepath.Join(t.TempDir(), "two")
	for _, dir := range []string{a, b} {
		require.NoError(t, s.Build(context.Background(), "arm64", dir, Programs[:1]))
	}
	x, err := os.ReadFile(filepath.Join(a, "exporter"))
	require.NoError(t, err)
	y, err := os.ReadFile(filepath.Join(b, "exporter"))
	require.NoError(t, err)
	require.True(t, string(x) == string(y), "two builds of one source differ")
	require.Contains(t, string(x), "9.8.7")
	require.Contains(t, string(x), "20261206-08:57:19")
	require.NotContains(t, string(x), root, "-trimpath keeps the checkout's path out")
}
