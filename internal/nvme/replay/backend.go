package replay

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/walab/walab/internal/safefile"

	"github.com/walab/walab/internal/nvme/admin"
)

// Backend answers admin commands from one controller folder.
//
// Every command re-reads its file, so a test advances a counter by rewriting
// the file between scrapes. Reads are served at the command's offset from the
// file. A log page file must hold the whole transfer: a truncated or emptied
// page is an error, never counters at zero. Other responses (Identify,
// Directive Receive, feature data) read as zero past the end of the file, the
// way reserved bytes look.
//
// The folder is not trusted: a page must be a regular file inside it
// (a symlink that leaves the folder, a FIFO or a device node is an error,
// never a hang or an endless read), and only the bytes the command
// transfers are read, so a huge file costs no more than a small one.
type Backend struct {
	dir string
}

// NewBackend returns a backend for a controller folder. The folder is not
// checked here: a folder that disappears later fails every command.
func NewBackend(dir string) *Backend { return &Backend{dir: dir} }

// Open checks the folder and returns it behind the admin guard as controller name.
func Open(name, dir string) (*admin.Device, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("replay %s: %w", name, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("replay %s: %s is not a directory", name, dir)
	}
	return admin.New(name, NewBackend(dir)), nil
}

// Dir is the controller folder.
func (b *Backend) Dir() string { return b.dir }

// Exec implements admin.Backend.
func (b *Backend) Exec(ctx context.Context, cmd admin.Command) (admin.Result, error) {
	name, ok := FileName(cmd)
	if !ok {
		return admin.Result{}, admin.Unsupported(cmd)
	}
	res, err := b.read(cmd, name)
	if errors.Is(err, fs.ErrNotExist) {
		// Tell a missing page (unsupported, normal) from a missing device
		// (the whole folder gone: a failure the exporter must report).
		if _, derr := os.Stat(b.dir); derr != nil {
			return admin.Result{}, fmt.Errorf("replay %s: %s: controller folder is gone: %w", b.dir, cmd, derr)
		}
		return admin.Result{}, admin.Unsupported(cmd)
	}
	if err != nil {
		return admin.Result{}, fmt.Errorf("replay %s: %s: %w", b.dir, cmd, err)
	}
	return res, nil
}

// read answers cmd from the file name of the folder.
func (b *Backend) read(cmd admin.Command, name string) (admin.Result, error) {
	root, err := os.OpenRoot(b.dir)
	if err != nil {
		return admin.Result{}, err
	}
	defer root.Close()
	f, err := safefile.OpenIn(root, name)
	if err != nil {
		return admin.Result{}, err
	}
	defer f.Close()
	var res admin.Result
	var off int64
	switch cmd.Opcode {
	case admin.OpGetFeatures:
		var dw0 [4]byte
		if n, err := f.ReadAt(dw0[:], 0); n < 4 {
			return admin.Result{}, fmt.Errorf("%s has %d bytes, want at least 4 (completion dword 0): %v", name, n, err)
		}
		res.DW0 = binary.LittleEndian.Uint32(dw0[:])
		off = 4
	case admin.OpGetLogPage:
		o := cmd.LogOffset()
		if o > math.MaxInt64-4 {
			return admin.Result{}, fmt.Errorf("log page offset %d out of range", o)
		}
		off = int64(o)
	}
	// The transfer, zero past the end of the file.
	res.Data = make([]byte, cmd.DataLen)
	n, err := f.ReadAt(res.Data, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return admin.Result{}, err
	}
	if cmd.Opcode == admin.OpGetLogPage && n < len(res.Data) {
		// A log page is counters: zeros past a truncated or emptied file
		// would read as counters at zero with the source up.
		return admin.Result{}, fmt.Errorf("%s holds %d bytes at offset %d, the transfer needs %d: a truncated or emptied page", name, n, off, len(res.Data))
	}
	return res, nil
}

// Close implements admin.Backend; there is nothing to release.
func (b *Backend) Close() error { return nil }

// Controllers lists the controller folders under root (one per subfolder),
// sorted by name. Each must be a capture: it holds id-ctrl.bin, which
// every capture has (the probe starts with Identify Controller). A root
// with no subfolder, or with none that is a capture (`--nvme.replay=/etc`),
// is refused as not a replay directory; a subfolder that is not a capture
// among ones that are is refused by name, rather than served as a
// controller that never answers.
func Controllers(root string) ([]string, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	var out, stray []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if fi, err := os.Stat(filepath.Join(root, e.Name(), "id-ctrl.bin")); err == nil && fi.Mode().IsRegular() {
			out = append(out, e.Name())
		} else {
			stray = append(stray, e.Name())
		}
	}
	switch {
	case len(out) == 0 && len(stray) == 0:
		return nil, fmt.Errorf("replay: %s has no controller folders (want e.g. %s)", root, filepath.Join(root, "nvme0"))
	case len(out) == 0:
		return nil, fmt.Errorf("replay: %s is not a replay directory: none of its %d folders holds a capture (id-ctrl.bin; `exporter capture` writes one folder per controller)", root, len(stray))
	case len(stray) > 0:
		sort.Strings(stray)
		return nil, fmt.Errorf("replay: %s: folder(s) %s hold no capture (no id-ctrl.bin); remove them or point --nvme.replay at the captures only", root, strings.Join(stray, ", "))
	}
	sort.Strings(out)
	return out, nil
}

// MaxTextBytes caps the text files of a capture (what sysfs would say: one
// page at most).
const MaxTextBytes = 4096

// ReadText returns an optional text file of a controller folder as a
// label value (safefile.CleanText): "" if absent. A file that is not a
// regular file inside dir, a hard link, or larger than MaxTextBytes, is an
// error, so that a model file linked to a secret never becomes a label.
func ReadText(dir, name string) (string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", fmt.Errorf("replay: %w", err)
	}
	defer root.Close()
	if fi, err := root.Lstat(name); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && fi.Mode().IsRegular() && st.Nlink > 1 {
			// Another name of the same file may be anywhere on the
			// filesystem (a root-only file): not a label to export.
			return "", fmt.Errorf("replay: %s in %s is a hard link (%d names): refusing it as a label", name, dir, st.Nlink)
		}
	}
	b, err := safefile.ReadFileIn(root, name, MaxTextBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("replay: %w", err)
	}
	return safefile.CleanText(b), nil
}
