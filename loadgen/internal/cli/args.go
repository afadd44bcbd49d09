package cli

import (
	"fmt"
	"strings"
)

// legacyNames are sysbench 0.4/0.5 option names (seed 004's command line)
// and their 1.0 names.
var legacyNames = map[string]string{"max-time": "time", "max-requests": "events", "num-threads": "threads",
	"oltp-table-size": "table-size", "oltp-tables-count": "tables"}

// legacyTest maps sysbench 0.4/0.5's --test value (a test name or a Lua
// script path) to a loadgen command: --test=oltp and oltp.lua are
// oltp_read_write, other scripts keep their name.
func legacyTest(v string) string {
	name := strings.TrimSuffix(v[strings.LastIndexByte(v, '/')+1:], ".lua")
	if name == "oltp" {
		return "oltp_read_write"
	}
	return name
}

// NormalizeArgs accepts sysbench's spellings on top of kingpin's:
// underscores in long flag names (--table_size = --table-size), on/off
// values for boolean flags (--skip_trx=on, --create_secondary=off), and
// the legacy form `--test=fileio ... --max-time=300 --max-requests=0
// --num-threads=128 run` (the test becomes the command, the options their
// 1.0 names). Arguments after "--" and values of other flags are left alone.
func NormalizeArgs(args []string, boolFlags map[string]bool) ([]string, error) {
	out := make([]string, 0, len(args))
	test := ""
	for i, a := range args {
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		if !strings.HasPrefix(a, "--") || len(a) == 2 {
			out = append(out, a)
			continue
		}
		name, val, hasVal := strings.Cut(a[2:], "=")
		// Dotted flags (--web.listen-address) keep their exact spelling.
		if !strings.Contains(name, ".") {
			name = strings.ReplaceAll(name, "_", "-")
		}
		if name == "test" && hasVal {
			if test != "" || val == "" || strings.HasPrefix(val, "-") {
				return nil, fmt.Errorf("--test=%s: give one test (--test=fileio)", val)
			}
			test = legacyTest(val)
			continue
		}
		if n, ok := legacyNames[name]; ok {
			name = n
		}
		if hasVal && boolFlags[name] {
			switch strings.ToLower(val) {
			case "on", "true", "yes", "1":
				out = append(out, "--"+name)
			case "off", "false", "no", "0":
				out = append(out, "--no-"+name)
			default:
				return nil, fmt.Errorf("--%s=%s: want on or off", name, val)
			}
			continue
		}
		if hasVal {
			out = append(out, "--"+name+"="+val)
		} else {
			out = append(out, "--"+name)
		}
	}
	if test != "" {
		out = append([]string{test}, out...)
	}
	out, err := sysbenchTPCC(out)
	if err != nil {
		return nil, err
	}
	return commandFirst(out, boolFlags), nil
}

// commandFirst moves the command words (workload, phase) before the
// options, as sysbench takes options anywhere (`sysbench --tables=100
// oltp_read_only prepare`) while a command's own options must follow it
// on loadgen's parser. A word is a command word unless it is the value of
// the option before it (`--tables 2`: a non-boolean option without "=").
func commandFirst(args []string, boolFlags map[string]bool) []string {
	var words, rest []string
	takesValue := false
	for i, a := range args {
		switch {
		case a == "--":
			rest = append(rest, args[i:]...)
			return append(words, rest...)
		case takesValue:
			rest = append(rest, a)
			takesValue = false
		case strings.HasPrefix(a, "-"):
			rest = append(rest, a)
			name := strings.TrimLeft(a, "-")
			takesValue = strings.HasPrefix(a, "--") && !strings.Contains(a, "=") && !boolFlags[name] && !boolFlags[strings.TrimPrefix(name, "no-")] && name != "help"
		default:
			words = append(words, a)
		}
	}
	return append(words, rest...)
}

// sysbenchTPCC maps sysbench-tpcc's form (tpcc.lua, --scale) onto loadgen
// tpcc: the script is the tpcc command, --scale its --warehouses; its
// --tables (copies of the schema) is tpcc's --tables.
func sysbenchTPCC(args []string) ([]string, error) {
	tpcc := false
	for i, a := range args {
		if a == "--" {
			break
		}
		if a == "tpcc.lua" || strings.HasSuffix(a, "/tpcc.lua") {
			args[i], tpcc = "tpcc", true
		}
		tpcc = tpcc || a == "tpcc"
	}
	if !tpcc {
		return args, nil
	}
	out := args[:0]
	for _, a := range args {
		if strings.HasPrefix(a, "--scale=") {
			a = "--warehouses=" + strings.TrimPrefix(a, "--scale=")
		}
		out = append(out, a)
	}
	return out, nil
}
