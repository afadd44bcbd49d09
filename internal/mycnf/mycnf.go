// Package mycnf reads MySQL option files (my.cnf) the way the mysql client
// does, for the [client] credentials a tool needs without a password on
// its command line: the exporter's innodb targets and loadgen's
// --defaults-extra-file.
package mycnf

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/go-sql-driver/mysql"
)

// Client is the [client] section of a my.cnf file.
type Client struct {
	User, Password, Host, Socket string
	Port                         int
}

// Config builds a driver config (TCP unless only a socket is given).
func (c Client) Config() *mysql.Config {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd = c.User, c.Password
	switch {
	case c.Socket != "" && c.Host == "":
		cfg.Net, cfg.Addr = "unix", c.Socket
	default:
		host, port := c.Host, c.Port
		if host == "" {
			host = "127.0.0.1"
		}
		if port == 0 {
			port = 3306
		}
		cfg.Net, cfg.Addr = "tcp", fmt.Sprintf("%s:%d", host, port)
		if strings.Contains(host, ":") {
			cfg.Addr = fmt.Sprintf("[%s]:%d", host, port)
		}
	}
	return cfg
}

// Parse reads the [client] section the way the mysql client reads an
// option file (MySQL reference manual, "Using Option Files"): '#' or ';'
// at the start of a line and '#' anywhere outside quotes start a comment;
// names and values are trimmed; a value may be quoted with ' or " (so it
// can hold '#'); the escapes \b \t \n \r \\ \s are decoded; later
// keys win; '-' and '_' are the same in names. A line that is neither a
// group, an option nor a directive is an error naming its line, as for the
// client. !include and !includedir are refused here (a reader has no
// folder); ParseFile follows them.
func Parse(r io.Reader) (Client, error) {
	var c Client
	err := parseOptionFile(r, "", 0, &c, new(string))
	return c, err
}

// ParseFile reads path and the files it includes (!include FILE,
// !includedir DIR: its *.cnf files in name order), at most 10 levels deep;
// relative include paths are taken from the including file's folder.
func ParseFile(path string) (Client, error) {
	var c Client
	err := parseOptionPath(path, 0, &c, new(string))
	return c, err
}

// maxOptionFile bounds one option file (a my.cnf is a few KiB).
const maxOptionFile = 1 << 20

func parseOptionPath(path string, depth int, c *Client, section *string) error {
	if depth > 10 {
		return fmt.Errorf("%s: includes nested more than 10 deep", path)
	}
	// O_NONBLOCK: opening a FIFO must not wait for a writer; the mode
	// check below refuses it.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", path)
	}
	if err := parseOptionFile(io.LimitReader(f, maxOptionFile), filepath.Dir(path), depth, c, section); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func parseOptionFile(r io.Reader, dir string, depth int, c *Client, section *string) error {
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '!' {
			verb, arg, _ := strings.Cut(line, " ")
			arg = strings.TrimSpace(arg)
			if verb != "!include" && verb != "!includedir" || arg == "" {
				return fmt.Errorf("line %d: unknown directive %q", n, verb)
			}
			if dir == "" {
				return fmt.Errorf("line %d: %s needs the file's path (use ParseFile)", n, verb)
			}
			if !filepath.IsAbs(arg) {
				arg = filepath.Join(dir, arg)
			}
			if err := include(verb, arg, depth, c, section); err != nil {
				return fmt.Errorf("line %d: %w", n, err)
			}
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return fmt.Errorf("line %d: unclosed section header", n)
			}
			if rest := strings.TrimSpace(line[end+1:]); rest != "" && rest[0] != '#' {
				return fmt.Errorf("line %d: text after the group header", n)
			}
			*section = strings.ToLower(strings.TrimSpace(line[1:end]))
			continue
		}
		k, raw, hasValue := strings.Cut(line, "=")
		if !hasValue {
			k, _, _ = strings.Cut(k, "#")
		}
		k = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(k)), "_", "-")
		if !optionName.MatchString(k) {
			return fmt.Errorf("line %d: %q is not an option", n, k)
		}
		v, err := optionValue(raw)
		if err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if *section != "client" {
			continue
		}
		switch k {
		case "user":
			c.User = v
		case "password":
			c.Password = v
		case "host":
			c.Host = v
		case "socket":
			c.Socket = v
		case "port":
			p, err := strconv.Atoi(v)
			if err != nil || p <= 0 || p > 65535 {
				return fmt.Errorf("line %d: port %q is not a TCP port", n, v)
			}
			c.Port = p
		}
	}
	return sc.Err()
}

func include(verb, path string, depth int, c *Client, section *string) error {
	if verb == "!include" {
		return parseOptionPath(path, depth+1, c, section)
	}
	ents, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	for _, e := range ents { // ReadDir sorts by name
		if strings.HasSuffix(e.Name(), ".cnf") && e.Type().IsRegular() {
			if err := parseOptionPath(filepath.Join(path, e.Name()), depth+1, c, section); err != nil {
				return err
			}
		}
	}
	return nil
}

var optionName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*$`)

// optionValue decodes the text after '=': quoted (the rest may only be a
// comment) or plain (cut at '#'), trimmed, escapes decoded.
func optionValue(raw string) (string, error) {
	v := strings.TrimSpace(raw)
	if v != "" && (v[0] == '"' || v[0] == '\'') {
		q := v[0]
		var b strings.Builder
		for i := 1; i < len(v); i++ {
			switch ch := v[i]; {
			case ch == '\\' && i+1 < len(v):
				i++
				b.WriteByte(unescape(v[i]))
			case ch == q:
				if rest := strings.TrimSpace(v[i+1:]); rest != "" && rest[0] != '#' {
					return "", fmt.Errorf("text after the quoted value: %q", rest)
				}
				return b.String(), nil
			default:
				b.WriteByte(ch)
			}
		}
		return "", fmt.Errorf("unclosed %c quote", q)
	}
	if i := strings.IndexByte(v, '#'); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
			b.WriteByte(unescape(v[i]))
			continue
		}
		b.WriteByte(v[i])
	}
	return b.String(), nil
}

// unescape is the option-file escape \c.
func unescape(c byte) byte {
	switch c {
	case 'b':
		return '\b'
	case 't':
		return '\t'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 's':
		return ' '
	}
	return c // \\ and any other: the character itself
}
