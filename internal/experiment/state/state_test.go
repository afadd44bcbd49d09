package state

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestSaveLoad: a saved state reads back equal, the file is not readable
// by others, and a file that is not walab's state is refused.
func TestSaveLoad(t *testing.T) {
	dir := t.TempDir()
	tps := 12.5
	st := &State{Magic: Magic, Plan: "p", PlanSHA256: "ab", Created: time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC),
		Steps: map[string]*StepState{"run/x": {Status: StatusDone, Attempts: 1}},
		Runs:  []RunRecord{{Step: "run/x", Run: "x", RunID: "p-x-1", Rep: 1, Attempt: 1, TPS: &tps}}}
	st.Settings.Round = 10 * time.Second
	require.NoError(t, Save(dir, st))
	got, err := Load(dir)
	require.NoError(t, err)
	require.Equal(t, st, got)
	fi, err := os.Stat(filepath.Join(dir, StateFile))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o640), fi.Mode().Perm())

	require.NoError(t, os.WriteFile(filepath.Join(dir, StateFile), []byte(`{"something": "else"}`), 0o644))
	_, err = Load(dir)
	require.ErrorContains(t, err, "is not a walab experiment state file")
	_, err = Load(filepath.Join(dir, "none"))
	require.ErrorContains(t, err, "no experiment state here")
}

// TestWriteAtomicRefusesNonFiles: a symlink or FIFO where walab writes is
// not replaced.
func TestWriteAtomicRefusesNonFiles(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(filepath.Join(dir, "target"), link))
	require.ErrorContains(t, WriteAtomic(link, []byte("x")), "not a regular file")
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, unix.Mkfifo(fifo, 0o644))
	require.ErrorContains(t, WriteAtomic(fifo, []byte("x")), "not a regular file")
	_, err := os.Stat(filepath.Join(dir, "target"))
	require.ErrorIs(t, err, os.ErrNotExist, "nothing written through the link")
}
