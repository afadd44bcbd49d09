package wa

import "github.com/walab/walab/internal/safefile"

// atomicWriter replaces a file so that a reader (or a crash) sees either the
// old or the new content, never a mix: temp file in the same directory,
// fsync, rename over the target, fsync the directory so the rename itself
// survives a power cut.
type atomicWriter struct {
	// failAfterWrite, when set (tests only), is called after the data is
	// written to the temp file and before it is synced and renamed.
	failAfterWrite func(tmp string) error
}

func (w atomicWriter) write(path string, data []byte) error {
	return safefile.WriteAtomic(path, data, w.failAfterWrite)
}
