// Package buildinfo says which walab a binary is: its module version, the
// commit it was built from and the Go toolchain, for --version, the
// exporter's walab_build_info series and every fingerprint.
//
// The Go toolchain stamps the commit (vcs.revision, vcs.modified) into a
// binary that `go build` or `go install` makes in a git checkout. It does
// not for `go run`, nor in a git worktree, nor under -buildvcs=false; the
// Makefile therefore also passes the commit with
// -ldflags "-X github.com/walab/walab/internal/buildinfo.revision=...",
// which works for go run as well. A commit nobody told the binary is
// "unknown", never guessed. A release build (make dist, internal/release)
// turns the toolchain's stamp off (-buildvcs=false) and passes version,
// commit and build date (the commit's date, so that two builds of one
// commit are the same bytes) this way.
package buildinfo

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/alecthomas/kingpin/v2"
)

// Set with -ldflags -X when the toolchain's stamp is missing.
var (
	version  string
	revision string
	modified string // "true" when the work tree had uncommitted changes
	date     string // build date, DateLayout (release builds: the commit's date)
)

// DateLayout is the build date's form, as promu stamps the Prometheus
// exporters' (time.Format layout, UTC).
const DateLayout = "20060102-15:04:05"

// Info is one binary's identity.
type Info struct {
	Version   string `json:"version"`             // module version, "(devel)" when none is known
	Revision  string `json:"revision"`            // commit hash, "unknown" when none is known
	Modified  bool   `json:"modified"`            // built from a work tree with uncommitted changes
	GoVersion string `json:"goversion"`           // e.g. go1.26.8
	BuildDate string `json:"builddate,omitempty"` // DateLayout; "" when the build was told none
}

var errVersionShown = errors.New("version shown")

// Unknown is the revision of a binary that was told no commit.
const Unknown = "unknown"

// Get reads the running binary's identity.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	in := from(bi, version, revision, modified)
	in.BuildDate = date
	return in
}

// from combines the toolchain's build info with the link-time values; the
// toolchain's stamp wins where both are present.
func from(bi *debug.BuildInfo, ldVersion, ldRevision, ldModified string) Info {
	in := Info{Version: ldVersion, Revision: ldRevision, Modified: ldModified == "true", GoVersion: runtime.Version()}
	if bi != nil {
		if bi.GoVersion != "" {
			in.GoVersion = bi.GoVersion
		}
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			in.Version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				in.Revision = s.Value
			case "vcs.modified":
				in.Modified = s.Value == "true"
			}
		}
	}
	if in.Version == "" {
		in.Version = "(devel)"
	}
	if in.Revision == "" {
		in.Revision = Unknown
	}
	return in
}

// Commit is the revision with "-modified" when the tree was dirty.
func (i Info) Commit() string {
	if i.Modified && i.Revision != Unknown {
		return i.Revision + "-modified"
	}
	return i.Revision
}

// String is the --version line of program, e.g.
// "walab_exporter version v0.1.0 (commit 986763a..., go1.26.8)".
func (i Info) String(program string) string {
	return fmt.Sprintf("%s version %s (commit %s, %s)", program, i.Version, i.Commit(), i.GoVersion)
}

// Print is the --version text of program, laid out as the Prometheus
// exporters print theirs (prometheus/common/version.Print):
//
//	walab_exporter, version 0.1.0 (revision: d2ba769...)
//	  build date:       20261206-08:57:19
//	  go version:       go1.26.8
//	  platform:         linux/arm64
//
// That library's Print is not used: it also prints the build user and the
// branch, which walab does not stamp (the user would make two builds of
// one commit differ, and a commit has no one branch), and it reads package
// globals set at link time. A build told no date says "unknown".
func (i Info) Print(program string) string {
	date := i.BuildDate
	if date == "" {
		date = Unknown
	}
	return fmt.Sprintf("%s, version %s (revision: %s)\n  build date:       %s\n  go version:       %s\n  platform:         %s/%s",
		program, i.Version, i.Commit(), date, i.GoVersion, runtime.GOOS, runtime.GOARCH)
}

var printRE = regexp.MustCompile(`^\S+, version (\S+) \(revision: (\S+)\)\n  build date: +(\S+)\n  go version: +(\S+)\n`)

// ParsePrint reads another walab binary's --version text (Print) back.
func ParsePrint(text string) (Info, bool) {
	m := printRE.FindStringSubmatch(strings.TrimLeft(text, "\n"))
	if m == nil {
		return Info{}, false
	}
	in := Info{Version: m[1], Revision: m[2], GoVersion: m[4]}
	if m[3] != Unknown {
		in.BuildDate = m[3]
	}
	if r, ok := strings.CutSuffix(in.Revision, "-modified"); ok {
		in.Revision, in.Modified = r, true
	}
	return in, true
}

// flagger is a kingpin application: the one method VersionFlag uses.
type flagger interface {
	Flag(name, help string) *kingpin.FlagClause
}

// VersionFlag adds --version to app: it prints program's Print text to w
// and ends the parse (kingpin returns errVersionShown, before it asks for a
// command); the returned bool tells the caller to stop there, whatever
// the parse returned. The flag's value counts: --no-version prints
// nothing and changes nothing (kingpin runs a flag's PreAction whatever its
// value, so the action reads it). kingpin reads --version=false as
// --version followed by an argument "false": pass args through VersionArgs
// first.
func VersionFlag(app flagger, program string, w io.Writer) *bool {
	asked := new(bool)
	var clause *kingpin.FlagClause
	clause = app.Flag("version", "Print the version, commit, build date, Go version and platform, then exit.").
		PreAction(func(ctx *kingpin.ParseContext) error {
			if !flagTrue(ctx, clause) {
				return nil
			}
			*asked = true
			fmt.Fprintln(w, Get().Print(program))
			return errVersionShown
		})
	clause.BoolVar(new(bool))
	return asked
}

// flagTrue: the last value the command line gave the bool flag is true.
func flagTrue(ctx *kingpin.ParseContext, flag *kingpin.FlagClause) bool {
	v := false
	for _, e := range ctx.Elements {
		if e.Clause == flag && e.Value != nil {
			b, err := strconv.ParseBool(*e.Value)
			v = err == nil && b
		}
	}
	return v
}

// VersionArgs rewrites --version=VALUE, which kingpin would read as
// --version and a stray argument, into --version when VALUE is true
// (strconv.ParseBool), and drops it, like --no-version, when it is false:
// kingpin sets no flag's default once a flag named "version" is on the
// command line at all (Application.setDefaults), so an explicit "no
// version" would leave every other flag at its zero value. Anything else,
// and everything after "--", is left for kingpin to refuse.
func VersionArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if a == "--no-version" {
			continue
		}
		if v, ok := strings.CutPrefix(a, "--version="); ok {
			if b, err := strconv.ParseBool(v); err == nil {
				if !b {
					continue
				}
				a = "--version"
			}
		}
		out = append(out, a)
	}
	return out
}
