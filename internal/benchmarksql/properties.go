// Package benchmarksql reads BenchmarkSQL 5.0 props files (the props.conf of
// seed 000) so an existing TPC-C setup runs unchanged under walab: Java
// properties syntax, the JDBC URL turned into a go-sql-driver DSN, and the
// benchmark keys mapped onto the tpcc workload's options.
package benchmarksql

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Property is one key=value of a properties file.
type Property struct {
	Key, Value string
	Line       int // 1-based line where the entry starts
}

// maxPropsBytes bounds what ParseProperties reads: props files are a few
// hundred bytes; anything this large is the wrong file.
const maxPropsBytes = 1 << 20

// ParseProperties reads java.util.Properties text: '#' or '!' comment
// lines, blank lines, key and value separated by '=', ':' or whitespace
// (spaces around the separator are skipped), a trailing odd backslash
// continuing the line, and the \t \n \r \f \uXXXX escapes. As in Java, a
// later duplicate key wins; the earlier entry stays in the slice.
func ParseProperties(r io.Reader) ([]Property, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxPropsBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxPropsBytes {
		return nil, fmt.Errorf("properties: larger than %d bytes", maxPropsBytes)
	}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(make([]byte, 0, 4096), maxPropsBytes+1)
	var out []Property
	lineNo := 0
	for sc.Scan() {
		lineNo++
		start := lineNo
		line := strings.TrimLeft(strings.TrimSuffix(sc.Text(), "\r"), " \t\f")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		// Join continuation lines; each continuation's leading space goes.
		for continues(line) {
			line = line[:len(line)-1]
			if !sc.Scan() {
				break
			}
			lineNo++
			line += strings.TrimLeft(strings.TrimSuffix(sc.Text(), "\r"), " \t\f")
		}
		key, value, err := splitEntry(line)
		if err != nil {
			return nil, fmt.Errorf("properties line %d: %w", start, err)
		}
		out = append(out, Property{Key: key, Value: value, Line: start})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("properties: %w", err)
	}
	return out, nil
}

// continues reports an odd number of trailing backslashes.
func continues(line string) bool {
	n := 0
	for i := len(line) - 1; i >= 0 && line[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitEntry splits a logical line at the first unescaped separator.
func splitEntry(line string) (key, value string, err error) {
	i := 0
	for i < len(line) {
		c := line[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		i++
	}
	rawKey := line[:min(i, len(line))]
	rest := ""
	if i < len(line) {
		rest = line[i:]
	}
	rest = strings.TrimLeft(rest, " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	if key, err = unescape(rawKey); err != nil {
		return "", "", err
	}
	if value, err = unescape(rest); err != nil {
		return "", "", fmt.Errorf("value of %q: %w", key, err)
	}
	return key, value, nil
}

func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(s) {
			break // a lone trailing backslash is dropped, as Java does
		}
		switch e := s[i]; e {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", fmt.Errorf(`malformed \uXXXX escape`)
			}
			v, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", fmt.Errorf(`malformed \uXXXX escape`)
			}
			b.WriteRune(rune(v))
			i += 4
		default:
			b.WriteByte(e)
		}
	}
	return b.String(), nil
}
