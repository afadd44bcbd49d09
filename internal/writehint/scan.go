package writehint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Result counts regular files and their bytes per hint label under a root.
type Result struct {
	Files     map[string]uint64
	Bytes     map[string]uint64
	Truncated bool   // stopped at the file limit: the counts cover only part of the tree
	Skipped   uint64 // files that vanished or could not be opened during the walk
}

// Scan walks root without following symlinks and reads each regular
// file's hint, stopping after maxFiles files. The walk goes through an
// os.Root, so no path, even one swapped for a symlink mid-walk, can lead
// outside root; symlinked files and directories are not counted.
func Scan(ctx context.Context, root string, maxFiles int) (Result, error) {
	if maxFiles <= 0 {
		return Result{}, fmt.Errorf("write hint scan of %s: file limit %d must be positive", root, maxFiles)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return Result{}, fmt.Errorf("write hint scan: %w", err)
	}
	defer r.Close()
	res := Result{Files: map[string]uint64{}, Bytes: map[string]uint64{}}
	for _, l := range Labels {
		res.Files[l], res.Bytes[l] = 0, 0
	}
	var n int
	errStop := errors.New("stop")
	err = fs.WalkDir(r.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			// A directory removed or unreadable mid-walk: count and go on.
			res.Skipped++
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil // directories are walked; symlinks, fifos, sockets, devices are not files with data
		}
		if n >= maxFiles {
			res.Truncated = true
			return errStop
		}
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		n++
		h, size, err := readOne(r, p)
		if err != nil {
			res.Skipped++
			return nil
		}
		res.Files[h.String()]++
		res.Bytes[h.String()] += size
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return Result{}, fmt.Errorf("write hint scan of %s: %w", root, err)
	}
	return res, nil
}

// readOne opens one file without following a final symlink or blocking
// (a file swapped for a fifo), and without touching its atime.
func readOne(r *os.Root, p string) (Hint, uint64, error) {
	f, err := r.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOATIME, 0)
	if errors.Is(err, syscall.EPERM) {
		// O_NOATIME needs ownership or CAP_FOWNER.
		f, err = r.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	}
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	if !st.Mode().IsRegular() {
		return 0, 0, fmt.Errorf("%s: no longer a regular file", filepath.Join(r.Name(), p))
	}
	h, err := Get(f)
	if err != nil {
		return 0, 0, err
	}
	return h, uint64(st.Size()), nil
}
