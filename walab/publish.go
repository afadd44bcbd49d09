package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// publish writes data to path, which must not exist, so that path never
// holds part of it: a temporary file in the same folder is written and
// synced, then hard-linked to path (link(2) fails on an existing name,
// symlinks included, where rename(2) would replace it) and removed.
func publish(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	if err := os.Link(tmp, path); err != nil {
		if os.IsExist(err) {
			return fmt.Errorf("%s exists: walab never overwrites a file", path)
		}
		return err
	}
	return nil
}
