package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/walab/walab/internal/experiment"
	"github.com/walab/walab/internal/experiment/plan"
)

// experimentCmd is `walab experiment run|resume`.
type experimentCmd struct {
	run, resume     *kingpin.CmdClause
	plan            *string
	out, resumeOut  *string
	dryRun, verbose *bool
	listen          map[string]*string
	progress        map[string]*time.Duration
	skip, redo      *[]string
}

func defineExperiment(app *kingpin.Application) *experimentCmd {
	c := &experimentCmd{}
	exp := app.Command("experiment", "Run a lab procedure written as a plan (YAML), unattended and resumable. See docs/experiment.md.")
	c.run = exp.Command("run", "Start the experiment of a plan file.")
	c.plan = c.run.Arg("plan", "The plan file (YAML).").Required().String()
	c.out = c.run.Flag("out", "Output directory: state, plan copy, logs, runs, report (new or empty; default walab-experiment-<name>-<time>).").String()
	c.dryRun = c.run.Flag("dry-run", "Validate the plan and show every step's host and command, destructive ones flagged; run nothing.").Bool()
	c.verbose = c.run.Flag("verbose", "With --dry-run: each remote step's full command line, the session guard and the transport's quoting included, and the line its remote shell runs.").Bool()
	c.resume = exp.Command("resume", "Continue an interrupted experiment from the step it reached.")
	c.resumeOut = c.resume.Flag("out", "The experiment's output directory.").Required().String()
	c.skip = c.resume.Flag("skip", "Treat this interrupted destructive step as done (step id, repeatable).").Strings()
	c.redo = c.resume.Flag("redo", "Run this interrupted destructive step again (step id, repeatable).").Strings()
	c.listen, c.progress = map[string]*string{}, map[string]*time.Duration{}
	for _, cl := range []*kingpin.CmdClause{c.run, c.resume} {
		c.listen[cl.FullCommand()] = cl.Flag("web.listen-address", "Serve progress metrics (walab_experiment_*) on this address; empty: none.").String()
		c.progress[cl.FullCommand()] = cl.Flag("progress", "Period of progress lines during a run.").Default("30s").Duration()
	}
	return c
}

// handles reports whether cmd is an experiment command.
func (c *experimentCmd) handles(cmd string) bool {
	return cmd == c.run.FullCommand() || cmd == c.resume.FullCommand()
}

func (c *experimentCmd) execute(cmd string, stdout, stderr io.Writer) int {
	fail := func(code int, err error) int {
		fmt.Fprintln(stderr, "walab experiment:", err)
		return code
	}
	// The address is taken before the output directory is made: one that
	// is in use leaves nothing behind.
	var l net.Listener
	if listen := *c.listen[cmd]; listen != "" && (cmd != c.run.FullCommand() || !*c.dryRun) {
		var err error
		if l, err = net.Listen("tcp", listen); err != nil {
			return fail(2, fmt.Errorf("--web.listen-address: %w", err))
		}
		defer l.Close()
	}
	var e *experiment.Executor
	if cmd == c.run.FullCommand() {
		raw, err := plan.ReadPlan(*c.plan)
		if err != nil {
			return fail(2, err)
		}
		// The plan is stored as written: no secret from the environment.
		src := plan.Source{Raw: raw, Getenv: os.LookupEnv}
		p, err := plan.Load(src, experiment.Kinds())
		if err != nil {
			return fail(2, fmt.Errorf("%s:\n%w", *c.plan, err))
		}
		if *c.dryRun {
			if err := experiment.DryRunFile(src, stdout, *c.verbose); err != nil {
				return fail(1, err)
			}
			return 0
		}
		out := *c.out
		if out == "" {
			out = fmt.Sprintf("walab-experiment-%s-%s", p.Name, time.Now().Format("20060102-150405"))
		}
		if e, err = experiment.Create(src, out); err != nil {
			return fail(2, err)
		}
	} else {
		var err error
		if e, err = experiment.Open(*c.resumeOut); err != nil {
			return fail(2, err)
		}
		e.Skip, e.Redo = set(*c.skip), set(*c.redo)
	}
	e.Stdout, e.ProgressEvery = stdout, *c.progress[cmd]
	if l != nil {
		reg := prometheus.NewRegistry()
		e.Metrics = experiment.NewMetrics(reg, e.Plan.Name)
		srv := &http.Server{Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(l) }()
		defer srv.Close()
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(stdout, "experiment %s in %s\n", e.Plan.Name, e.Out)
	if err := e.Execute(ctx); err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "walab experiment: interrupted; continue with: walab experiment resume --out %s\n", e.Out)
			return 130
		}
		fmt.Fprintf(stderr, "walab experiment: %v\nreport so far: %s; continue with: walab experiment resume --out %s\n",
			err, filepath.Join(e.Out, experiment.ReportFile), e.Out)
		_ = e.WriteReport()
		return 1
	}
	fmt.Fprintf(stdout, "report: %s\n", filepath.Join(e.Out, experiment.ReportFile))
	return 0
}

func set(list []string) map[string]bool {
	m := map[string]bool{}
	for _, s := range list {
		m[s] = true
	}
	return m
}
