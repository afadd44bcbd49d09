// Command walab holds the lab's commands: `walab lab` runs the whole loop
// on this machine (make run), `walab compare` judges a candidate run
// against a baseline (docs/compare.md), `walab experiment` runs a plan
// (docs/experiment.md).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/alecthomas/kingpin/v2"

	"github.com/walab/walab/internal/buildinfo"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run parses args and dispatches to the chosen command; it returns the
// exit code.
func run(args []string, stdout, stderr io.Writer) int {
	app := kingpin.New("walab", "walab lab utilities.")
	app.UsageWriter(stderr)
	app.ErrorWriter(stderr)
	// --help ends the program through Terminate; record it instead of
	// exiting so run stays testable, and run no command after it.
	helped := false
	app.Terminate(func(int) { helped = true })
	versionAsked := buildinfo.VersionFlag(app, "walab", stdout)
	cmp := defineCompare(app)
	exp := defineExperiment(app)
	lab := defineLab(app)

	cmd, err := app.Parse(buildinfo.VersionArgs(args))
	if *versionAsked {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "walab:", err)
		return 2
	}
	if helped {
		return 0
	}
	switch {
	case cmp.handles(cmd):
		return cmp.execute(stdout, stderr)
	case exp.handles(cmd):
		return exp.execute(cmd, stdout, stderr)
	case lab.handles(cmd):
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
		defer stop()
		return lab.execute(ctx, stdout, stderr)
	}
	return 0 // no command: kingpin printed the usage
}
