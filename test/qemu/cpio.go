package qemu

import (
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
)

// File modes of the newc format (the S_IF* bits plus permissions).
const (
	modeDir     = 0o040000
	modeFile    = 0o100000
	modeSymlink = 0o120000
	modeCharDev = 0o020000
)

// Entry is one member of an initramfs.
type Entry struct {
	Name         string // path inside the archive, without a leading slash
	Mode         uint32 // type bits | permissions
	Data         []byte // file content, or the symlink target
	Major, Minor uint32 // device numbers of a device node
}

// Archive is an initramfs under construction. Parent directories are added
// automatically; names are unique (a later Add replaces an earlier one).
type Archive struct {
	entries map[string]Entry
}

// NewArchive returns an empty archive.
func NewArchive() *Archive { return &Archive{entries: map[string]Entry{}} }

func (a *Archive) add(e Entry) {
	e.Name = strings.TrimPrefix(path.Clean("/"+e.Name), "/")
	for dir := path.Dir(e.Name); dir != "." && dir != "/"; dir = path.Dir(dir) {
		if _, ok := a.entries[dir]; !ok {
			a.entries[dir] = Entry{Name: dir, Mode: modeDir | 0o755}
		}
	}
	a.entries[e.Name] = e
}

// Dir adds a directory.
func (a *Archive) Dir(name string) { a.add(Entry{Name: name, Mode: modeDir | 0o755}) }

// File adds a regular file.
func (a *Archive) File(name string, perm uint32, data []byte) {
	a.add(Entry{Name: name, Mode: modeFile | perm&0o7777, Data: data})
}

// Symlink adds a symbolic link.
func (a *Archive) Symlink(name, target string) {
	a.add(Entry{Name: name, Mode: modeSymlink | 0o777, Data: []byte(target)})
}

// CharDev adds a character device node (the kernel needs /dev/console
// before devtmpfs is mounted).
func (a *Archive) CharDev(name string, perm, major, minor uint32) {
	a.add(Entry{Name: name, Mode: modeCharDev | perm&0o7777, Major: major, Minor: minor})
}

// WriteTo writes the archive in the "newc" format the kernel unpacks
// (Documentation/driver-api/early-userspace/buffer-format.rst): parents
// before children, then the TRAILER!!! entry.
func (a *Archive) WriteTo(w io.Writer) (int64, error) {
	names := make([]string, 0, len(a.entries))
	for n := range a.entries {
		names = append(names, n)
	}
	sort.Strings(names) // "a" sorts before "a/b": parents first
	cw := &countWriter{w: w}
	for i, n := range names {
		if err := writeEntry(cw, a.entries[n], uint32(i+1)); err != nil {
			return cw.n, err
		}
	}
	err := writeEntry(cw, Entry{Name: "TRAILER!!!"}, 0)
	return cw.n, err
}

func writeEntry(w io.Writer, e Entry, ino uint32) error {
	nlink := uint32(1)
	if e.Mode&0o170000 == modeDir {
		nlink = 2
	}
	name := e.Name + "\x00"
	hdr := fmt.Sprintf("070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		ino, e.Mode, 0, 0, nlink, 0, len(e.Data), 0, 0, e.Major, e.Minor, len(name), 0)
	for _, part := range [][]byte{[]byte(hdr), []byte(name), pad4(len(hdr) + len(name)), e.Data, pad4(len(e.Data))} {
		if _, err := w.Write(part); err != nil {
			return err
		}
	}
	return nil
}

// pad4 is the zero padding that brings n up to a multiple of 4.
func pad4(n int) []byte { return make([]byte, (4-n%4)%4) }

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
