// Command fleetstack starts the fleet's monitoring stack (internal/fleetstack)
// for bench/fleet.sh: once every part is ready it writes its URLs and
// process ids to -out as shell assignments, then runs until SIGTERM or
// SIGINT and stops everything it started.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/walab/walab/internal/fleetstack"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "fleetstack:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	var c fleetstack.Config
	fs := flag.NewFlagSet("fleetstack", flag.ExitOnError)
	fs.StringVar(&c.Dir, "dir", "", "working directory: data and logs (required)")
	fs.StringVar(&c.Scrape, "scrape", "", "vmagent's scrape configuration (required)")
	fs.StringVar(&c.Rules, "rules", "", "walab's rules, alerts/gen's output (required)")
	engines := fs.String("engines", string(fleetstack.SingleNode), "stores, comma-separated: victoria-metrics, thanos")
	fs.IntVar(&c.Agents, "agents", 2, "sharded vmagents")
	fs.DurationVar(&c.Eval, "eval", 0, "vmalert's evaluation interval (0: 5s)")
	fs.IntVar(&c.Nice, "nice", 10, "niceness of every process")
	out := fs.String("out", "", "file the URLs and process ids are written to once ready (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.Dir == "" || c.Scrape == "" || c.Rules == "" || *out == "" {
		return errors.New("-dir, -scrape, -rules and -out are required")
	}
	for _, e := range strings.Split(*engines, ",") {
		if e := fleetstack.Engine(e); e != fleetstack.SingleNode && e != fleetstack.Thanos {
			return fmt.Errorf("-engines: %q is neither %s nor %s", e, fleetstack.SingleNode, fleetstack.Thanos)
		}
		c.Engines = append(c.Engines, fleetstack.Engine(e))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := fleetstack.Start(ctx, c)
	if err != nil {
		return err
	}
	defer s.Stop()
	if err := os.WriteFile(*out, []byte(s.Env()), 0o644); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}
