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
	st := &state{}
	if err := parseOptionFile(r, "", 0, &c, st); err != nil {
		return c, err
	}
	return c, st.check()
}

// ParseFile reads path and the files it includes (!include FILE,
// !includedir DIR: its *.cnf files in name order), at most 10 levels deep;
// relative include paths are taken from the including file's folder.
func ParseFile(path string) (Client, error) {
	var c Client
	st := &state{}
	if err := parseOptionPath(path, 0, &c, st); err != nil {
		return c, err
	}
	if err := st.check(); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// state is where a parse is: the current group, and whether a [client]
// group was seen.
type state struct {
	section string
	client  bool
}

// check refuses a file without a [client] group: it would log in as the
// anonymous user ”@, not as anyone the file names.
func (st *state) check() error {
	if !st.client {
		return fmt.Errorf("no [client] group: nothing to log in with (the login would be the anonymous ''@)")
	}
	return nil
}

// maxOptionFile bounds one option file (a my.cnf is a few KiB).
const maxOptionFile = 1 << 20

func parseOptionPath(path string, depth int, c *Client, st *state) error {
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
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", path)
	}
	if err := parseOptionFile(io.LimitReader(f, maxOptionFile), filepath.Dir(path), depth, c, st); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func parseOptionFile(r io.Reader, dir string, depth int, c *Client, st *state) error {
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
			if err := include(verb, arg, depth, c, st); err != nil {
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
			st.section = strings.ToLower(strings.TrimSpace(line[1:end]))
			st.client = st.client || st.section == "client"
			continue
		}
		k, raw, hasValue := strings.Cut(line, "=")
		if !hasValue {
			k, _, _ = strings.Cut(k, "#")
		}
		k = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(k)), "_", "-")
		if !optionName.MatchString(k) {
			return notAnOption(n, k)
		}
		v, err := optionValue(raw)
		if err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if st.section != "client" {
			continue
		}
		if !hasValue && !clientFlag(k) {
			return fmt.Errorf("line %d: a bare word in [client] that is no option of the client without a value (MySQL would refuse it as --WORD; the line is not shown: it may be a password that lost its \"password=\")", n)
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

func include(verb, path string, depth int, c *Client, st *state) error {
	if verb == "!include" {
		return parseOptionPath(path, depth+1, c, st)
	}
	ents, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	for _, e := range ents { // ReadDir sorts by name
		if strings.HasSuffix(e.Name(), ".cnf") && e.Type().IsRegular() {
			if err := parseOptionPath(filepath.Join(path, e.Name()), depth+1, c, st); err != nil {
				return err
			}
		}
	}
	return nil
}

// notAnOption is the error for line n, whose text before any '=' is k. The
// line is not echoed: "password hunter2" is a password with its '=' lost.
// Only a first word that is an option name is shown.
func notAnOption(n int, k string) error {
	if f := strings.Fields(k); len(f) > 1 && optionName.MatchString(f[0]) {
		return fmt.Errorf("line %d: option %q followed by text without '=' (the rest is not shown: it may be a password)", n, f[0])
	}
	return fmt.Errorf("line %d: not an option, a group or a directive (the line is not shown: it may hold a password)", n)
}

// clientFlag: a name that may stand alone in [client]. MySQL reads a bare
// name as --name (its option-file rules) and the client refuses an option
// it does not know; walab knows the client's common flags, and takes any
// name with a '-' (skip-ssl, loose-..., no-auto-rehash) for one, since a
// bare password rarely has one.
func clientFlag(k string) bool {
	switch k {
	case "password", "compress", "ssl", "quick", "force", "verbose", "silent", "batch", "raw", "table", "vertical",
		"unbuffered", "reconnect", "comments", "debug", "html", "xml", "sigint-ignore", "progress-reports":
		return true
	}
	return strings.Contains(k, "-")
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
					return "", fmt.Errorf("text after the quoted value (not shown: it may be part of a password)")
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
