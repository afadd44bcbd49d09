package wa

import (
	"fmt"
	"os"
	"path/filepath"
)

// atomicWriter replaces a file so that a reader (or a crash) sees either the
// old or the new content, never a mix: temp file in the same directory,
// fsync, rename over the target, fsync the directory so the rename itself
// survives a power cut.
type atomicWriter struct {
	// failAfterWrite, when set (tests only), is called after the data is
	// written to the temp file and before it is synced and renamed.
	failAfterWrite func(tmp string) error
}

func (w atomicWriter) write(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if w.failAfterWrite != nil {
		if err = w.failAfterWrite(tmp); err != nil {
			return err
		}
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open %s to sync the rename: %w", dir, err)
	}
	defer d.Close()
	if err = d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
