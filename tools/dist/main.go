// Command dist builds walab's release artifacts into a directory (`make
// dist`): per architecture walab-VERSION.linux-ARCH.tar.gz, the
// walab-exporter and walab packages (.deb, .rpm), and sha256sums.txt.
// Two runs on one commit write the same bytes (internal/release).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/alecthomas/kingpin/v2"

	"github.com/walab/walab/internal/release"
)

func main() {
	app := kingpin.New("dist", "Build walab's release archives and packages from the current commit.")
	out := app.Flag("out", "Output directory.").Default("dist").String()
	arches := app.Flag("arch", "GOARCH to build (repeatable).").Default(release.Arches...).Strings()
	root := app.Flag("root", "Module root (the checkout to build).").Default(".").String()
	dirty := app.Flag("allow-dirty", "Build a work tree with uncommitted changes; its binaries say <commit>-modified and the build is not the commit's.").Bool()
	kingpin.MustParse(app.Parse(os.Args[1:]))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	s, err := release.ReadSource(ctx, *root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "dist: walab %s, commit %s, build date %s\n", s.Version, s.Revision, s.Date.Format("2006-01-02T15:04:05Z"))
	made, err := release.Dist(ctx, s, release.Options{Out: *out, Arches: *arches, AllowDirty: *dirty, Log: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
	fmt.Printf("%s/: %s\n", strings.TrimSuffix(*out, "/"), strings.Join(made, " "))
}
