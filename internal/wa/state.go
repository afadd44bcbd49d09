package wa

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"

	"github.com/walab/walab/internal/safefile"
)

// State file layout (little-endian), version 1:
//
//	header  magic "WALABWA\x00" [8] | version u16 | reserved u16 | payload length u32 | CRC-32C of payload u32
//	payload saved_at i64 ms | device count u32 | devices...
//	device  name len u8 | name | source len u8 | source | resets u64 |
//	        mark: t i64 ms | host u64 | media u64 | flags u8 (1 pending, 2 lost) |
//	        sample count u32 | samples: t i64 ms | host u64 | media u64
//
// Binary rather than JSON: 24 devices x 1441 samples is ~0.8 MB binary and
// several MB of JSON, rewritten every minute. The CRC catches truncation and
// bit rot; the magic and version catch a foreign or future file.
const (
	stateMagic   = "WALABWA\x00"
	stateVersion = 1
	headerSize   = 8 + 2 + 2 + 4 + 4
	sampleSize   = 8 + 8 + 8
	// maxDevices bounds what a decoder will believe before allocating.
	maxDevices = 4096
)

var (
	crcTable   = crc32.MakeTable(crc32.Castagnoli)
	errNoState = errors.New("no state file")
)

// maxStateDevices is how many devices' worth of full history the size cap
// on a state file allows for: more controllers than one host has.
const maxStateDevices = 64

// minStateCap is the smallest size cap, so that a file written under a
// longer window configuration still loads after the windows shrink.
const minStateCap = 64 << 20

// maxStateBytes is the largest state file a sampler keeping capacity
// samples per device reads: maxStateDevices devices with full rings and
// the longest names, at least minStateCap. A larger file is refused before
// it is read whole (a 3 GB file at the state path used to be loaded).
func maxStateBytes(capacity int) int64 {
	perDevice := int64(2*(1+255) + 8 + 8 + 8 + 8 + 1 + 4 + capacity*sampleSize)
	return max(minStateCap, headerSize+8+4+maxStateDevices*perDevice)
}

// ForeignFileError is a state path that holds something walab did not
// write: a symlink, a FIFO, a device node, a directory or a file without
// walab's header. The sampler refuses to start rather than replace it.
type ForeignFileError struct {
	Path string
	Err  error
}

func (e *ForeignFileError) Error() string {
	return fmt.Sprintf("wa: state file %s is not walab's (%v); refusing to use or replace it: move it away or set wa.state_file to another path", e.Path, e.Err)
}

func (e *ForeignFileError) Unwrap() error { return e.Err }

// isOurs reports whether b starts like a file encodeState wrote (a prefix
// of the magic counts: a state file truncated inside its header is still
// ours to replace). An empty file is treated as ours: replacing it loses
// nothing.
func isOurs(b []byte) bool {
	n := min(len(b), len(stateMagic))
	return string(b[:n]) == stateMagic[:n]
}

type deviceState struct {
	Name    string
	Source  string
	Resets  uint64
	Mark    runMark
	Samples []sample
}

type state struct {
	SavedAt int64
	Devices []deviceState
}

func encodeState(b []byte, st state) []byte {
	b = append(b, stateMagic...)
	b = binary.LittleEndian.AppendUint16(b, stateVersion)
	b = binary.LittleEndian.AppendUint16(b, 0)
	lenAt := len(b)
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 0) // length and CRC, filled below
	start := len(b)
	b = binary.LittleEndian.AppendUint64(b, uint64(st.SavedAt))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(st.Devices)))
	for _, d := range st.Devices {
		b = appendShortString(b, d.Name)
		b = appendShortString(b, d.Source)
		b = binary.LittleEndian.AppendUint64(b, d.Resets)
		b = binary.LittleEndian.AppendUint64(b, uint64(d.Mark.T))
		b = binary.LittleEndian.AppendUint64(b, d.Mark.Host)
		b = binary.LittleEndian.AppendUint64(b, d.Mark.Media)
		var p byte // mark flags: 1 pending, 2 lost
		if d.Mark.Pending {
			p |= 1
		}
		if d.Mark.Lost {
			p |= 2
		}
		b = append(b, p)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(d.Samples)))
		for _, s := range d.Samples {
			b = binary.LittleEndian.AppendUint64(b, uint64(s.T))
			b = binary.LittleEndian.AppendUint64(b, s.Host)
			b = binary.LittleEndian.AppendUint64(b, s.Media)
		}
	}
	payload := b[start:]
	binary.LittleEndian.PutUint32(b[lenAt:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(b[lenAt+4:], crc32.Checksum(payload, crcTable))
	return b
}

// appendShortString truncates at 255 bytes; device names and sources are
// short identifiers, so this never bites in practice.
func appendShortString(b []byte, s string) []byte {
	if len(s) > 255 {
		s = s[:255]
	}
	b = append(b, byte(len(s)))
	return append(b, s...)
}

// decodeState parses a state file, rejecting anything not written by
// encodeState of this version. It never panics on any input.
func decodeState(b []byte) (state, error) {
	if len(b) == 0 {
		return state{}, errors.New("state file is empty")
	}
	if len(b) < headerSize {
		return state{}, fmt.Errorf("state file truncated: %d bytes, header needs %d", len(b), headerSize)
	}
	if string(b[:8]) != stateMagic {
		return state{}, fmt.Errorf("not a walab WA state file (magic %q)", b[:8])
	}
	if v := binary.LittleEndian.Uint16(b[8:]); v != stateVersion {
		return state{}, fmt.Errorf("state file version %d, this build reads version %d", v, stateVersion)
	}
	n := binary.LittleEndian.Uint32(b[12:])
	payload := b[headerSize:]
	if uint64(n) != uint64(len(payload)) {
		return state{}, fmt.Errorf("state file payload is %d bytes, header says %d (truncated or appended to)", len(payload), n)
	}
	if got, want := crc32.Checksum(payload, crcTable), binary.LittleEndian.Uint32(b[16:]); got != want {
		return state{}, fmt.Errorf("state file checksum mismatch (%08x, header %08x)", got, want)
	}
	r := reader{b: payload}
	st := state{SavedAt: int64(r.u64())}
	nd := r.u32()
	if nd > maxDevices {
		return state{}, fmt.Errorf("state file claims %d devices (limit %d)", nd, maxDevices)
	}
	seen := map[string]bool{}
	for i := uint32(0); i < nd && r.err == nil; i++ {
		var d deviceState
		d.Name = r.str()
		d.Source = r.str()
		d.Resets = r.u64()
		d.Mark.T = int64(r.u64())
		d.Mark.Host = r.u64()
		d.Mark.Media = r.u64()
		switch p := r.u8(); p {
		case 0:
		case 1:
			d.Mark.Pending = true
		case 2:
			d.Mark.Lost = true
		default:
			r.fail(fmt.Errorf("device %q: mark flags %d", d.Name, p))
		}
		ns := r.u32()
		if r.err != nil {
			break
		}
		if d.Name == "" || seen[d.Name] {
			return state{}, fmt.Errorf("state file device %d: empty or duplicate name %q", i, d.Name)
		}
		seen[d.Name] = true
		if uint64(ns)*sampleSize > uint64(r.left()) {
			return state{}, fmt.Errorf("state file device %q claims %d samples, only %d bytes left", d.Name, ns, r.left())
		}
		d.Samples = make([]sample, ns)
		for j := range d.Samples {
			s := sample{T: int64(r.u64()), Host: r.u64(), Media: r.u64()}
			if j > 0 && s.T <= d.Samples[j-1].T {
				return state{}, fmt.Errorf("state file device %q: samples out of time order at %d", d.Name, j)
			}
			d.Samples[j] = s
		}
		st.Devices = append(st.Devices, d)
	}
	if r.err != nil {
		return state{}, r.err
	}
	if r.left() != 0 {
		return state{}, fmt.Errorf("state file has %d bytes after the last device", r.left())
	}
	return st, nil
}

// loadState reads the state file at path without following a symlink,
// blocking on a FIFO or reading more than max bytes. Anything at the path
// that is not walab's is a *ForeignFileError; a walab file that does not
// decode (truncated, bit rot) is a plain error.
func loadState(path string, max int64) (state, error) {
	b, err := safefile.ReadFile(path, max)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return state{}, errNoState
	case errors.Is(err, safefile.ErrNotRegular):
		return state{}, &ForeignFileError{Path: path, Err: err}
	case errors.Is(err, safefile.ErrTooLarge):
		// A file this large cannot be one this configuration wrote; whose it is
		// cannot be told without reading it, so it is not replaced.
		return state{}, &ForeignFileError{Path: path, Err: err}
	case err != nil:
		return state{}, err
	}
	if !isOurs(b) {
		return state{}, &ForeignFileError{Path: path, Err: fmt.Errorf("no walab header (starts %q)", b[:min(len(b), 8)])}
	}
	return decodeState(b)
}

// reader is a bounds-checked cursor; after the first error every read returns zero.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) left() int { return len(r.b) - r.off }

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if r.left() < n {
		r.fail(fmt.Errorf("state file truncated at byte %d", headerSize+r.off))
		return nil
	}
	p := r.b[r.off : r.off+n]
	r.off += n
	return p
}

func (r *reader) u8() byte {
	if p := r.take(1); p != nil {
		return p[0]
	}
	return 0
}

func (r *reader) u32() uint32 {
	if p := r.take(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if p := r.take(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (r *reader) str() string { return string(r.take(int(r.u8()))) }
