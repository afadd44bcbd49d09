package cli

import (
	"fmt"
	"strings"
)

// legacyNames are sysbench 0.4/0.5 option names (seed 004's command line)
// and their 1.0 names.
var legacyNames = map[string]string{"max-time": "time", "max-requests": "events", "num-threads": "threads"}

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
			test = val
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
	return out, nil
}
