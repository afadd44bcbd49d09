package decode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Layout describes a vendor log page declaratively, so a drive whose vendor
// counters walab does not know can be supported from the exporter's YAML
// without new code.
type Layout struct {
	Name   string  `yaml:"name"`   // also the `source` label, e.g. "seed000_c0"
	LogID  uint8   `yaml:"log_id"` // Get Log Page LID
	Length uint32  `yaml:"length"` // bytes to read; a multiple of 4
	NSID   uint32  `yaml:"nsid"`   // 0 means the default 0xFFFFFFFF
	UUID   string  `yaml:"uuid"`   // optional vendor UUID: read with its Identify UUID List index (0 if absent)
	Match  Match   `yaml:"match"`
	Format string  `yaml:"format"` // "fixed" (default) or "kv12"
	Fields []Field `yaml:"fields"`
	// UnitConfirmed: two public sources agree on the fields' unit_bytes.
	// False marks the byte counters as unconfirmed (walab_nvme_info
	// unit_confirmed="false"); WA does not depend on a unit both counters
	// share.
	UnitConfirmed bool `yaml:"unit_confirmed"`
}

// Match selects drives and guards pages. VID and ModelRegex pick drives
// automatically (a layout with neither is only used when configured for a
// device explicitly); GUID/NotGUID are checked on every page decoded.
type Match struct {
	VID        []uint16 `yaml:"vid"`
	ModelRegex string   `yaml:"model_regex"`
	// NotModelRegex refuses models it matches: two layouts of one vendor
	// split its models between them (one's model_regex is the other's
	// not_model_regex), so no drive is claimed by both.
	NotModelRegex string  `yaml:"not_model_regex"`
	GUIDOffset    *uint32 `yaml:"guid_offset"`
	GUID          string  `yaml:"guid"`     // hex, page byte order; the page must carry it
	NotGUID       string  `yaml:"not_guid"` // hex; refuse pages carrying it (e.g. OCP)
}

// Field is one counter in a vendor page.
type Field struct {
	Meaning   string `yaml:"meaning"`    // host_written | media_written | gc_written
	Offset    uint32 `yaml:"offset"`     // fixed: byte offset in the page
	Width     uint8  `yaml:"width"`      // fixed: 2, 4, 6, 8 or 16 bytes, little-endian
	Key       uint8  `yaml:"key"`        // kv12: item key to scan for
	UnitBytes uint64 `yaml:"unit_bytes"` // bytes per count
	// ID (fixed): the item's id byte at IDOffset, checked before the value
	// is read; a page carrying another id there is refused (a firmware that
	// moved its items), as nvme-cli checks the id of an item it reads by
	// position.
	ID       *uint8 `yaml:"id,omitempty"`
	IDOffset uint32 `yaml:"id_offset,omitempty"`
}

// VendorCounters are a vendor page's write counters in bytes; nil when the
// layout (or, for kv12, this firmware's page) lacks the counter.
type VendorCounters struct {
	HostWritten, MediaWritten, GCWritten *U128
}

// Field meanings and formats.
const (
	MeaningHostWritten  = "host_written"
	MeaningMediaWritten = "media_written"
	MeaningGCWritten    = "gc_written"

	FormatFixed = "fixed"
	FormatKV12  = "kv12"

	// DefaultNSID is the "all namespaces" NSID vendor logs are read with.
	DefaultNSID = 0xFFFFFFFF

	maxLayoutLength = 64 << 10
	kv12ItemSize    = 12
	kv12RawOffset   = 5
	kv12RawWidth    = 6
)

var layoutName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// EffectiveNSID is the NSID to read the page with.
func (l Layout) EffectiveNSID() uint32 {
	if l.NSID == 0 {
		return DefaultNSID
	}
	return l.NSID
}

func (l Layout) format() string {
	if l.Format == "" {
		return FormatFixed
	}
	return l.Format
}

// Validate reports every problem with a layout at once, so a user fixing a
// YAML file sees them all on the first run.
func (l Layout) Validate() error {
	var errs []error
	add := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }

	if !layoutName.MatchString(l.Name) {
		add("name %q must be lower-case letters, digits and underscores, starting with a letter (it becomes the source label)", l.Name)
	}
	switch {
	case l.Length == 0:
		add("length is missing")
	case l.Length%4 != 0:
		add("length %d is not a multiple of 4 (Get Log Page reads whole dwords)", l.Length)
	case l.Length > maxLayoutLength:
		add("length %d is over the %d-byte limit", l.Length, maxLayoutLength)
	}
	for _, m := range []struct{ name, re string }{{"model_regex", l.Match.ModelRegex}, {"not_model_regex", l.Match.NotModelRegex}} {
		if _, err := regexp.Compile(m.re); err != nil {
			add("match.%s: %v", m.name, err)
		}
	}
	if l.UUID != "" {
		if _, err := parseGUID(l.UUID); err != nil {
			add("uuid: %v", err)
		}
	}
	if err := l.Match.validateGUIDs(l.Length); err != nil {
		errs = append(errs, err)
	}
	switch l.format() {
	case FormatFixed, FormatKV12:
	default:
		add("format %q is not %q or %q", l.Format, FormatFixed, FormatKV12)
	}
	if l.format() == FormatKV12 && l.Length < kv12ItemSize {
		add("length %d cannot hold one %d-byte kv12 item", l.Length, kv12ItemSize)
	}
	if len(l.Fields) == 0 {
		add("no fields: a layout must name at least one counter")
	}
	for i, f := range l.Fields {
		if err := f.validate(l.format(), l.Length); err != nil {
			add("fields[%d]: %v", i, err)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("layout %q: %w", l.Name, errors.Join(errs...))
}

func (f Field) validate(format string, length uint32) error {
	switch f.Meaning {
	case MeaningHostWritten, MeaningMediaWritten, MeaningGCWritten:
	default:
		return fmt.Errorf("meaning %q is not one of %s, %s, %s", f.Meaning, MeaningHostWritten, MeaningMediaWritten, MeaningGCWritten)
	}
	if f.UnitBytes == 0 {
		return fmt.Errorf("%s: unit_bytes is missing (bytes per count, e.g. 4096)", f.Meaning)
	}
	if format == FormatKV12 {
		if f.Offset != 0 || (f.Width != 0 && f.Width != kv12RawWidth) {
			return fmt.Errorf("%s: kv12 items are found by key; offset must be unset and width unset or %d", f.Meaning, kv12RawWidth)
		}
		return nil
	}
	if f.Key != 0 {
		return fmt.Errorf("%s: key is only for format kv12", f.Meaning)
	}
	switch f.Width {
	case 2, 4, 6, 8, 16:
	default:
		return fmt.Errorf("%s: width %d is not 2, 4, 6, 8 or 16", f.Meaning, f.Width)
	}
	if uint64(f.Offset)+uint64(f.Width) > uint64(length) {
		return fmt.Errorf("%s: bytes %d..%d lie beyond the %d-byte length", f.Meaning, f.Offset, uint64(f.Offset)+uint64(f.Width)-1, length)
	}
	if f.ID != nil && f.IDOffset >= length {
		return fmt.Errorf("%s: id_offset %d lies beyond the %d-byte length", f.Meaning, f.IDOffset, length)
	}
	return nil
}

// parseGUID accepts hex with optional separators ("C5AF1028-...",
// "c5 af ...", "0x..."); it runs on every Decode, so it does not allocate
// unless the GUID is malformed.
func parseGUID(s string) ([16]byte, error) {
	var g [16]byte
	t := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	n := 0 // hex digits seen
	for i := 0; i < len(t); i++ {
		c := t[i]
		var v byte
		switch {
		case c == '-' || c == ' ' || c == ':':
			continue
		case '0' <= c && c <= '9':
			v = c - '0'
		case 'a' <= c && c <= 'f':
			v = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			v = c - 'A' + 10
		default:
			return g, fmt.Errorf("%q is not hex: bad character %q", s, c)
		}
		if n < 32 {
			g[n/2] |= v << (4 * (1 - n%2))
		}
		n++
	}
	if n%2 != 0 {
		return g, fmt.Errorf("%q is not hex: odd number of digits", s)
	}
	if n != 32 {
		return g, fmt.Errorf("%q is %d bytes, want 16", s, n/2)
	}
	return g, nil
}

func (m Match) validateGUIDs(length uint32) error {
	if m.GUID == "" && m.NotGUID == "" {
		if m.GUIDOffset != nil {
			return errors.New("match.guid_offset is set but neither guid nor not_guid is")
		}
		return nil
	}
	if m.GUIDOffset == nil {
		return errors.New("match.guid/not_guid need match.guid_offset")
	}
	if uint64(*m.GUIDOffset)+16 > uint64(length) {
		return fmt.Errorf("match.guid_offset %d: the 16-byte GUID lies beyond the %d-byte length", *m.GUIDOffset, length)
	}
	for _, g := range []struct{ name, v string }{{"guid", m.GUID}, {"not_guid", m.NotGUID}} {
		if g.v == "" {
			continue
		}
		if _, err := parseGUID(g.v); err != nil {
			return fmt.Errorf("match.%s: %v", g.name, err)
		}
	}
	return nil
}

// Matches reports whether the layout applies to this controller by PCI VID
// and model. A layout with neither criterion matches nothing on its own; the
// page's GUID is checked later, by Decode.
func (l Layout) Matches(id IDController) bool {
	if len(l.Match.VID) == 0 && l.Match.ModelRegex == "" {
		return false
	}
	if len(l.Match.VID) > 0 && !slices.Contains(l.Match.VID, id.VID) {
		return false
	}
	if l.Match.ModelRegex != "" && !modelMatches(l.Match.ModelRegex, id.Model) {
		return false
	}
	return l.Match.NotModelRegex == "" || !modelMatches(l.Match.NotModelRegex, id.Model)
}

// modelMatches reports whether a (validated) regular expression matches
// the model; one that does not compile matches nothing.
func modelMatches(expr, model string) bool {
	re, err := regexp.Compile(expr)
	return err == nil && re.MatchString(model)
}

// Decode reads the layout's counters from a page, in bytes. It checks the
// GUID guards and every bound against the page actually returned. A meaning
// listed more than once is the sum of its fields (a page that splits NAND
// writes by cell type, TLC and SLC); when one of them is missing from the
// page (a kv12 key this firmware lacks) the meaning is absent, never a
// partial sum. When the layout has host and GC counters but no media
// counter, media = host + GC (NAND writes are the host's plus the
// controller's own).
func (l Layout) Decode(page []byte) (VendorCounters, error) {
	what := l.describe()
	if err := l.checkGUIDs(what, page); err != nil {
		return VendorCounters{}, err
	}
	var vc VendorCounters
	var missing [3]bool // host, media, GC: a part of the meaning is not on the page
	for _, f := range l.Fields {
		if f.UnitBytes == 0 {
			return VendorCounters{}, fmt.Errorf("decode %s: field %s has no unit_bytes", what, f.Meaning)
		}
		raw, found, err := l.readField(what, page, f)
		if err != nil {
			return VendorCounters{}, err
		}
		var to **U128
		var i int
		switch f.Meaning {
		case MeaningHostWritten:
			to, i = &vc.HostWritten, 0
		case MeaningMediaWritten:
			to, i = &vc.MediaWritten, 1
		case MeaningGCWritten:
			to, i = &vc.GCWritten, 2
		default:
			return VendorCounters{}, fmt.Errorf("decode %s: unknown field meaning %q", what, f.Meaning)
		}
		if !found {
			missing[i] = true
			continue
		}
		v, ok := raw.MulUint64(f.UnitBytes)
		if !ok {
			return VendorCounters{}, fmt.Errorf("decode %s: %s %s x %d bytes overflows 128 bits", what, f.Meaning, raw, f.UnitBytes)
		}
		if *to != nil {
			if v, ok = (*to).Add(v); !ok {
				return VendorCounters{}, fmt.Errorf("decode %s: the %s fields' sum overflows 128 bits", what, f.Meaning)
			}
		}
		*to = &v
	}
	for i, to := range []**U128{&vc.HostWritten, &vc.MediaWritten, &vc.GCWritten} {
		if missing[i] {
			*to = nil
		}
	}
	if vc.HostWritten == nil && vc.MediaWritten == nil && vc.GCWritten == nil {
		return VendorCounters{}, fmt.Errorf("decode %s: none of the layout's counters is on the page", what)
	}
	if vc.MediaWritten == nil && vc.HostWritten != nil && vc.GCWritten != nil && !l.hasMeaning(MeaningMediaWritten) {
		m, ok := vc.HostWritten.Add(*vc.GCWritten)
		if !ok {
			return VendorCounters{}, fmt.Errorf("decode %s: host + gc bytes overflow 128 bits", what)
		}
		vc.MediaWritten = &m
	}
	return vc, nil
}

// describe names the page in errors.
type layoutWhat struct {
	id   uint8
	name string
}

func (w layoutWhat) String() string {
	return fmt.Sprintf("vendor log 0x%02X (layout %s)", w.id, w.name)
}

func (l Layout) describe() layoutWhat { return layoutWhat{l.LogID, l.Name} }

func (l Layout) hasMeaning(m string) bool {
	return slices.ContainsFunc(l.Fields, func(f Field) bool { return f.Meaning == m })
}

func (l Layout) checkGUIDs(what layoutWhat, page []byte) error {
	m := l.Match
	if m.GUID == "" && m.NotGUID == "" {
		return nil
	}
	if m.GUIDOffset == nil {
		return fmt.Errorf("decode %s: guid check configured without guid_offset", what)
	}
	off := uint64(*m.GUIDOffset)
	if off+16 > uint64(len(page)) {
		return &ShortBufferError{What: what.String() + " GUID", Need: int(off + 16), Got: len(page)}
	}
	got := page[off : off+16]
	if m.GUID != "" {
		want, err := parseGUID(m.GUID)
		if err != nil {
			return fmt.Errorf("decode %s: match.guid: %v", what, err)
		}
		if !bytes.Equal(got, want[:]) {
			return fmt.Errorf("decode %s: GUID %X at offset %d, want %X: %w", what, got, off, want[:], ErrGUIDMismatch)
		}
	}
	if m.NotGUID != "" {
		refused, err := parseGUID(m.NotGUID)
		if err != nil {
			return fmt.Errorf("decode %s: match.not_guid: %v", what, err)
		}
		if bytes.Equal(got, refused[:]) {
			return fmt.Errorf("decode %s: page carries GUID %X at offset %d, which this layout refuses: %w", what, got, off, ErrRefusedGUID)
		}
	}
	return nil
}

// readField returns the raw count of one field; found is false only for a
// kv12 key the page does not carry (firmware differ in which items they list).
func (l Layout) readField(what layoutWhat, page []byte, f Field) (U128, bool, error) {
	switch l.format() {
	case FormatFixed:
		switch f.Width {
		case 2, 4, 6, 8, 16:
		default:
			return U128{}, false, fmt.Errorf("decode %s: field %s has width %d", what, f.Meaning, f.Width)
		}
		end := uint64(f.Offset) + uint64(f.Width)
		if end > uint64(len(page)) || f.ID != nil && uint64(f.IDOffset) >= uint64(len(page)) {
			return U128{}, false, &ShortBufferError{What: fmt.Sprintf("%s field %s", what, f.Meaning), Need: int(max(end, uint64(f.IDOffset)+1)), Got: len(page)}
		}
		if f.ID != nil && page[f.IDOffset] != *f.ID {
			return U128{}, false, fmt.Errorf("decode %s: field %s: the item at byte %d has id 0x%02X, not 0x%02X: not the page this layout reads", what, f.Meaning, f.IDOffset, page[f.IDOffset], *f.ID)
		}
		return LE128(page[f.Offset:end]), true, nil
	case FormatKV12:
		// The first item carrying the key wins: bytes past a short page's
		// real end are undefined and must not override a real item.
		for off := 0; off+kv12ItemSize <= len(page); off += kv12ItemSize {
			if page[off] == f.Key {
				return LE128(page[off+kv12RawOffset : off+kv12RawOffset+kv12RawWidth]), true, nil
			}
		}
		return U128{}, false, nil
	}
	return U128{}, false, fmt.Errorf("decode %s: format %q is not %q or %q", what, l.Format, FormatFixed, FormatKV12)
}

// Append appends a page of the layout carrying the raw counts (before
// unit_bytes) by field meaning: fixed fields at their offsets, kv12 items
// in field order from the first item (key, normalized 100, 48-bit raw), the
// layout's GUID where it requires one, every other byte zero. It is how
// fixtures and tests build a drive family's page from its layout alone:
// Decode(Append(counts)) gives counts x unit_bytes (a meaning with several
// fields gets its count in the first, zero in the others). A count that
// does not fit its field, or a meaning the layout lacks, is an error.
func (l Layout) Append(b []byte, counts map[string]uint64) ([]byte, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	p := make([]byte, l.Length)
	for m := range counts {
		if !l.hasMeaning(m) {
			return nil, fmt.Errorf("layout %s: no %s field", l.Name, m)
		}
	}
	le := binary.LittleEndian
	var w [8]byte
	placed := map[string]bool{}
	for i, f := range l.Fields {
		v, ok := counts[f.Meaning]
		if !ok {
			continue
		}
		if placed[f.Meaning] {
			v = 0 // a summed meaning's count goes in its first field
		}
		placed[f.Meaning] = true
		off, width := int(f.Offset), int(f.Width)
		if l.format() == FormatKV12 {
			off, width = i*kv12ItemSize, kv12RawWidth
			if off+kv12ItemSize > len(p) {
				return nil, fmt.Errorf("layout %s: item %d does not fit %d bytes", l.Name, i, len(p))
			}
			p[off], p[off+3] = f.Key, 100
			off += kv12RawOffset
		}
		if f.ID != nil && l.format() == FormatFixed {
			p[f.IDOffset] = *f.ID
		}
		if width < 8 && v>>(8*width) != 0 {
			return nil, fmt.Errorf("layout %s: %s count %d does not fit %d bytes", l.Name, f.Meaning, v, width)
		}
		le.PutUint64(w[:], v)
		copy(p[off:off+min(width, 8)], w[:])
	}
	if l.Match.GUID != "" && l.Match.GUIDOffset != nil {
		g, err := parseGUID(l.Match.GUID)
		if err != nil {
			return nil, fmt.Errorf("layout %s: match.guid: %v", l.Name, err)
		}
		copy(p[*l.Match.GUIDOffset:], g[:])
	}
	return append(b, p...), nil
}

// BuiltinLayout returns the built-in layout called name.
func BuiltinLayout(name string) (Layout, bool) {
	for _, l := range BuiltinLayouts() {
		if l.Name == name {
			return l, true
		}
	}
	return Layout{}, false
}
