// Command fleetsim serves a simulated fleet of database hosts on loopback,
// one exporter per host at /hosts/N/metrics, for walab's fleet tests and
// bench/fleet.sh. It writes a Prometheus file_sd targets file (the hosts,
// for vmagent or Prometheus) and a JSON list of the drives with their
// simulated WA and whether they regress, then keeps the simulated clock at
// -step per -tick of wall time since its start until it is interrupted,
// and prints how long the clock's steps took.
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
	step := flag.Duration("step", time.Minute, "simulated time per tick of wall time: the clock runs step/tick times as fast as the wall clock")
	tick := flag.Duration("tick", time.Second, "wall-clock time between the clock's steps (a step whose writes take longer makes the next one longer)")
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
	wallStart := time.Now().Truncate(time.Second)
	f, err := fleetsim.New(c, filepath.Join(*dir, "replay"), wallStart, logger)
	if err != nil {
		return err
	}
	defer f.Close()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	if err := writeFiles(*dir, ln.Addr().String(), f, float64(*step)/float64(*tick)); err != nil {
		return err
	}
	srv := &http.Server{Handler: f.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // ends with Shutdown
	fmt.Printf("fleetsim: %d hosts x %d drives at http://%s/hosts/N/metrics\n", c.Hosts, c.DrivesPerHost, ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	work, err := pace(ctx, f, wallStart, *step, *tick)
	fmt.Printf("fleetsim: %d steps, each step's writes took %s on average, %s at most (tick %s)\n",
		work.n, work.mean(), work.max, *tick)
	if err != nil {
		return err
	}
	return srv.Shutdown(context.Background())
}

// stepWork is how long the clock's steps took: when it exceeds the tick,
// the simulated clock still keeps pace but in coarser steps.
type stepWork struct {
	n        int
	sum, max time.Duration
}

func (w stepWork) mean() time.Duration {
	if w.n == 0 {
		return 0
	}
	return (w.sum / time.Duration(w.n)).Round(time.Millisecond)
}

// pace keeps the simulated clock at step/tick times the wall time since
// wallStart, moving it every tick until ctx ends.
func pace(ctx context.Context, f *fleetsim.Fleet, wallStart time.Time, step, tick time.Duration) (stepWork, error) {
	var w stepWork
	speed := float64(step) / float64(tick)
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return w, nil
		case now := <-t.C:
			if err := f.AdvanceTo(time.Duration(speed * float64(now.Sub(wallStart)))); err != nil {
				return w, err
			}
			d := time.Since(now)
			w.n, w.sum, w.max = w.n+1, w.sum+d, max(w.max, d)
		}
	}
}

// writeFiles writes targets.json (file_sd: one target group a host, its
// instance label the host's name), drives.json (the fleet's drives) and
// clock.json (the wall time of simulated time 0 and the clock's speed, from
// which a regression's wall time follows).
func writeFiles(dir, addr string, f *fleetsim.Fleet, speed float64) error {
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
	clock := map[string]any{"start": f.Now().UTC().Format(time.RFC3339Nano), "speed": speed}
	for name, v := range map[string]any{"targets.json": groups, "drives.json": f.Drives(), "clock.json": clock} {
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
