package wa

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAtomicWriteFailureKeepsOldFile(t *testing.T) {
	errInjected := errors.New("disk full (injected)")
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) atomicWriter
	}{
		{
			// A full disk fails here; injected, as tests cannot fill one.
			// A read-only directory is TestAtomicWriteUnwritableDirectory.
			name: "write fails after part of the data",
			setup: func(t *testing.T, dir string) atomicWriter {
				return atomicWriter{failAfterWrite: func(tmp string) error {
					fi, err := os.Stat(tmp)
					require.NoError(t, err)
					require.Positive(t, fi.Size(), "temp file holds the new data")
					return errInjected
				}}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "wa.state")
			require.NoError(t, atomicWriter{}.write(path, []byte("old state")))
			w := tc.setup(t, dir)
			require.Error(t, w.write(path, []byte("new state, longer than the old one")))
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Equal(t, "old state", string(b))
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			require.Len(t, entries, 1, "no temp file left behind")
		})
	}
}

func TestSamplerSaveFailureKeepsLastGoodState(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "wa.state")
	r := &fakeReader{}
	s, _ := newTestSampler(t, r, Options{StatePath: path})
	r.set("nvme0", 1, 1)
	require.NoError(t, s.Sample(context.Background(), t0))
	good, err := os.ReadFile(path)
	require.NoError(t, err)

	s.writer.failAfterWrite = func(string) error { return errors.New("injected") }
	r.set("nvme0", 2, 3)
	require.ErrorContains(t, s.Sample(context.Background(), t0.Add(60e9)), "save state")
	now, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, good, now)

	// Once writing works again the unsaved sample goes out with the next one.
	s.writer.failAfterWrite = nil
	require.NoError(t, s.Flush())
	st, err := loadState(path, minStateCap)
	require.NoError(t, err)
	require.Len(t, st.Devices[0].Samples, 2)
}

func TestAtomicWriteReplaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "wa.state")
	for _, content := range []string{"first", "second, longer", "3"} {
		require.NoError(t, atomicWriter{}.write(path, []byte(content)))
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, content, string(b))
	}
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
}
