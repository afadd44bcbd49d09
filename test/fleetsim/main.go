// Command fleetsim serves a simulated fleet of database hosts on loopback,
// one exporter per host at /hosts/N/metrics, for walab's fleet tests and
// bench/fleet.sh. It writes a Prometheus file_sd targets file (the hosts,
// for vmagent or Prometheus) and a JSON list of the drives with their
// simulated WA and whether they regress, then advances the simulated clock
// by -step every -tick until it is interrupted.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/walab/walab/internal/fleetsim"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "fleetsim:", err)
		os.Exit(1)
	}
}

func run() error {
	var c fleetsim.Config
	flag.Uint64Var(&c.Seed, "seed", 1, "seed of the fleet's drives, workloads and regressions")
	flag.IntVar(&c.Hosts, "hosts", 50, "simulated database hosts")
	flag.IntVar(&c.DrivesPerHost, "drives-per-host", 4, "NVMe drives per host")
	flag.IntVar(&c.Regressed, "regressed", 2, "drives whose WA regresses")
	flag.DurationVar(&c.RegressAt, "regress-at", 2*time.Hour, "simulated time of the WA regression")
	flag.Float64Var(&c.RegressFactor, "regress-factor", 1.6, "the regressed drives' WA multiplier")
	listen := flag.String("listen", "127.0.0.1:0", "loopback address to serve on")
	dir := flag.String("dir", "", "working directory (replay pages, targets.json, drives.json); required")
	step := flag.Duration("step", time.Minute, "simulated time added at every tick")
	tick := flag.Duration("tick", time.Second, "wall-clock time between ticks")
	flag.Parse()
	if *dir == "" {
		return errors.New("-dir is required")
	}
	host, _, err := net.SplitHostPort(*listen)
	if err != nil {
		return fmt.Errorf("-listen: %w", err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-listen %s: only loopback addresses are served", *listen)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	f, err := fleetsim.New(c, filepath.Join(*dir, "replay"), time.Now().Truncate(time.Second), logger)
	if err != nil {
		return err
	}
	defer f.Close()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	if err := writeFiles(*dir, ln.Addr().String(), f); err != nil {
		return err
	}
	srv := &http.Server{Handler: f.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // ends with Shutdown
	fmt.Printf("fleetsim: %d hosts x %d drives at http://%s/hosts/N/metrics\n", c.Hosts, c.DrivesPerHost, ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	t := time.NewTicker(*tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return srv.Shutdown(context.Background())
		case <-t.C:
			if err := f.Advance(*step); err != nil {
				return err
			}
		}
	}
}

// writeFiles writes targets.json (file_sd: one target group a host, its
// instance label the host's name) and drives.json (the fleet's drives).
func writeFiles(dir, addr string, f *fleetsim.Fleet) error {
	type group struct {
		Targets []string          `json:"targets"`
		Labels  map[string]string `json:"labels"`
	}
	var groups []group
	for h := range f.Config().Hosts {
		groups = append(groups, group{[]string{addr}, map[string]string{
			// instance names the host: every target shares one address.
			"__metrics_path__": fmt.Sprintf("/hosts/%d/metrics", h), "instance": fmt.Sprintf("db%05d", h)}})
	}
	for name, v := range map[string]any{"targets.json": groups, "drives.json": f.Drives()} {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
