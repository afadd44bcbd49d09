package replay

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/walab/walab/internal/nvme/admin"
)

// Backend answers admin commands from one controller folder.
//
// Every command re-reads its file, so a test advances a counter by rewriting
// the file between scrapes. Reads are served at the command's offset from the
// whole file; bytes past the end of the file read as zero, the way a device
// pads a log page shorter than the transfer (and the way reserved bytes look).
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
	raw, err := os.ReadFile(filepath.Join(b.dir, name))
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
	var res admin.Result
	var off uint64
	switch cmd.Opcode {
	case admin.OpGetFeatures:
		if len(raw) < 4 {
			return admin.Result{}, fmt.Errorf("replay %s: %s: %s has %d bytes, want at least 4 (completion dword 0)", b.dir, cmd, name, len(raw))
		}
		res.DW0 = binary.LittleEndian.Uint32(raw)
		raw = raw[4:]
	case admin.OpGetLogPage:
		off = cmd.LogOffset()
	}
	res.Data = window(raw, off, cmd.DataLen)
	return res, nil
}

// window copies n bytes of raw starting at off, zero past the end.
func window(raw []byte, off uint64, n uint32) []byte {
	out := make([]byte, n)
	if off < uint64(len(raw)) {
		copy(out, raw[off:])
	}
	return out
}

// Close implements admin.Backend; there is nothing to release.
func (b *Backend) Close() error { return nil }

// Controllers lists the controller folders under root (one per subfolder),
// sorted by name. A root with no subfolder is an error: a replay run with no
// device is almost certainly a wrong path.
func Controllers(root string) ([]string, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("replay: %s has no controller folders (want e.g. %s)", root, filepath.Join(root, "nvme0"))
	}
	sort.Strings(out)
	return out, nil
}

// ReadText returns a trimmed optional text file of a controller folder ("" if absent).
func ReadText(dir, name string) string {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return ""
	}
	return trimText(b)
}
