// Package fileclass names the kind of write a MariaDB (or MySQL) server
// makes from the file it goes to: redo log, doublewrite buffer, data
// pages, undo log, binary log, the system tablespace, or other. The
// simulated drive counts its host bytes per class (docs/simfs.md has the
// table), so a user sees where the drive's writes come from.
package fileclass

import (
	"path"
	"regexp"
)

// Class indexes Names.
type Class uint8

// The classes, in Names' order.
const (
	Redo Class = iota
	Doublewrite
	Data
	Undo
	Binlog
	System
	Other
)

// Names are the class label values.
var Names = []string{"redo", "doublewrite", "data", "undo", "binlog", "system", "other"}

func (c Class) String() string { return Names[c] }

// The doublewrite buffer of a MariaDB system tablespace (ibdataN with
// innodb_page_size up to 16 KiB) is its two blocks of one extent each,
// created at pages FSP_EXTENT_SIZE..3*FSP_EXTENT_SIZE-1: bytes [1 MiB, 3 MiB)
// of ibdata1, an extent being 1 MiB at those page sizes.
const (
	dblwrStart = 1 << 20
	dblwrEnd   = 3 << 20
)

var (
	redo   = regexp.MustCompile(`^(ib_logfile[0-9]+|#ib_redo[0-9]+(_tmp)?)$`)
	binlog = regexp.MustCompile(`^.+\.([0-9]{6,}|index)$`)
	undo   = regexp.MustCompile(`^undo_?[0-9]+$`)
	system = regexp.MustCompile(`^ibdata[0-9]+$`)
	aria   = regexp.MustCompile(`^aria_log\.[0-9]{8}$`)
)

// Of classifies a write at byte offset off of the file at name (a path;
// only its base name counts).
func Of(name string, off uint64) Class {
	base := path.Base(name)
	switch {
	case redo.MatchString(base):
		return Redo
	case path.Ext(base) == ".dblwr":
		return Doublewrite
	case system.MatchString(base):
		if base == "ibdata1" && off >= dblwrStart && off < dblwrEnd {
			return Doublewrite
		}
		return System
	case path.Ext(base) == ".ibd":
		return Data
	case undo.MatchString(base):
		return Undo
	case aria.MatchString(base):
		return Other
	case binlog.MatchString(base):
		return Binlog
	}
	return Other
}

// Memo is Of for a caller that asks about the same files again and
// again (a write path: every write and fsync): it matches a name against
// the patterns once and remembers its class, and only the ibdata1
// doublewrite range's offset test runs each time. It is not safe for
// concurrent use; the zero Memo is ready.
type Memo struct{ m map[string]Class }

// memoMax bounds a Memo: past it, it forgets every name (binary logs
// get new names all the time).
const memoMax = 4096

// Of is Of(name, off).
func (m *Memo) Of(name string, off uint64) Class {
	c, ok := m.m[name]
	if !ok {
		if m.m == nil || len(m.m) >= memoMax {
			m.m = make(map[string]Class)
		}
		c = Of(name, 0)
		m.m[name] = c
	}
	if c == System && off >= dblwrStart && off < dblwrEnd && path.Base(name) == "ibdata1" {
		return Doublewrite
	}
	return c
}
