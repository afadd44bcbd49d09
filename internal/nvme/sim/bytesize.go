package sim

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ByteSize is a byte count that YAML may give as a number or with a unit:
// "256MiB", "1TiB", "200MB", "4096". Decimal units (kB, MB, GB, TB) are powers
// of 1000, binary ones (KiB, MiB, GiB, TiB) powers of 1024.
type ByteSize uint64

var byteUnits = map[string]float64{
	"": 1, "b": 1,
	"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12, "p": 1e15, "pb": 1e15,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40, "pib": 1 << 50,
}

// ParseByteSize parses "<number>[unit]"; the number may have a fraction ("1.5GiB").
func ParseByteSize(s string) (ByteSize, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	if num == "" {
		return 0, fmt.Errorf("byte size %q: no number", s)
	}
	mult, ok := byteUnits[unit]
	if !ok {
		return 0, fmt.Errorf("byte size %q: unknown unit %q (use B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)", s, t[i:])
	}
	if unit == "" || unit == "b" {
		v, err := strconv.ParseUint(num, 10, 64)
		if err == nil {
			return ByteSize(v), nil
		}
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("byte size %q: %w", s, err)
	}
	v := f * mult
	if v >= math.MaxUint64 || math.IsNaN(v) {
		return 0, fmt.Errorf("byte size %q overflows 64 bits", s)
	}
	return ByteSize(v), nil
}

// UnmarshalYAML accepts an integer or a string with a unit.
func (b *ByteSize) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: byte size must be a number or a string like 256MiB", n.Line)
	}
	v, err := ParseByteSize(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*b = v
	return nil
}

// MarshalYAML writes the plain byte count.
func (b ByteSize) MarshalYAML() (any, error) { return uint64(b), nil }

// String is a short human form, for logs and errors.
func (b ByteSize) String() string {
	for _, u := range []struct {
		name string
		v    uint64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if uint64(b) >= u.v && uint64(b)%u.v == 0 {
			return fmt.Sprintf("%d%s", uint64(b)/u.v, u.name)
		}
	}
	return fmt.Sprintf("%dB", uint64(b))
}
