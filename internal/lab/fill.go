package lab

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/walab/walab/internal/compare"
	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/fingerprint"
)

// The drive's fill through the lab's runs. Under the FUSE filesystem the
// drive maps exactly the pages the files hold (TRIM on), so its fill is
// the database's size on it: a run that grows the database moves the
// drive's fill, and with it its WA, which then follows the fill and not
// time. The lab samples the fill every second during each run, refuses a
// run whose growth, at the rate measured in the runs before it, would
// take the drive past maxFill, stops a run that is on course to pass it
// (the first run's projection, from the end of its second round: the
// first is the warm-up), and prints the fill per round beside WA.

// maxFill is the highest fill a run may reach: at 100 % the filesystem
// answers ENOSPC and MariaDB stops writing; the margin holds the binary
// logs' swing between purges (two 8 MiB files on the lab's 640 MiB).
const maxFill = 0.97

// fillSample is the drive's fill at one moment.
type fillSample struct {
	at   time.Time
	fill float64
}

// runFill is one run's samples.
type runFill struct {
	name     string
	start    time.Time
	expected time.Duration
	capacity float64 // bytes
	samples  []fillSample
}

// rate is the run's growth in bytes per second: the least-squares slope
// of its fill over the samples from the end of its first round on (the
// warm-up: InnoDB extends its files before the first deletes catch up,
// and the binary logs' rotation moves the fill up and down, which a slope
// over many samples averages out), over all its samples while those
// after the warm-up span less than a second; ok false without two
// samples a second apart.
func (r *runFill) rate(warmup time.Duration) (float64, bool) {
	var after []fillSample
	for _, s := range r.samples {
		if s.at.Sub(r.start) >= warmup {
			after = append(after, s)
		}
	}
	if len(after) < 2 || after[len(after)-1].at.Sub(after[0].at) < time.Second {
		after = r.samples
	}
	if len(after) < 2 || after[len(after)-1].at.Sub(after[0].at) < time.Second {
		return 0, false
	}
	var st, sf, stt, stf float64
	for _, s := range after {
		t := s.at.Sub(after[0].at).Seconds()
		st, sf, stt, stf = st+t, sf+s.fill, stt+t*t, stf+t*s.fill
	}
	n := float64(len(after))
	return (n*stf - st*sf) / (n*stt - st*st) * r.capacity, true
}

// readFill reads the lab's drive's fill and capacity from its exporter.
func readFill(client *http.Client, base string) func(context.Context) (float64, float64, error) {
	return func(ctx context.Context) (float64, float64, error) {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		st, err := fingerprint.GetSim(ctx, client, base)
		if err != nil {
			return 0, 0, err
		}
		if st.CapacityBytes <= 0 {
			return 0, 0, fmt.Errorf("%s: the simulated drive gives no capacity", base)
		}
		return st.Fill, st.CapacityBytes, nil
	}
}

// growth follows the fill. read returns the drive's fill and capacity in
// bytes; stop ends the experiment with an error.
type growth struct {
	read  func(ctx context.Context) (fill, capacity float64, err error)
	round time.Duration
	every time.Duration
	stop  func(error)

	mu   sync.Mutex
	runs []*runFill
	end  context.CancelFunc // the current run's sampler
	wg   sync.WaitGroup
}

// close stops the current run's sampler.
func (g *growth) close() {
	g.mu.Lock()
	end := g.end
	g.end = nil
	g.mu.Unlock()
	if end != nil {
		end()
	}
	g.wg.Wait()
}

// fastest is the highest growth rate of the runs so far and its run.
func (g *growth) fastest() (rate float64, r *runFill) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, x := range g.runs {
		if v, ok := x.rate(g.round); ok && (r == nil || v > rate) {
			rate, r = v, x
		}
	}
	return rate, r
}

// beforeRun is the experiment's BeforeRun: it refuses a run that the
// fastest growth measured so far would take past maxFill, and starts
// sampling the run.
func (g *growth) beforeRun(ctx context.Context, it plan.Item) error {
	g.close()
	fill, capacity, err := g.read(ctx)
	if err != nil {
		return fmt.Errorf("the drive's fill before run %s: %w", it.ID, err)
	}
	if rate, r := g.fastest(); r != nil && rate > 0 {
		need, room := rate*it.Expected.Seconds(), (maxFill-fill)*capacity
		if need > room {
			a, b := r.samples[0], r.samples[len(r.samples)-1]
			return fmt.Errorf("run %s refused: it would outgrow the drive. The database grew %.2f MiB/s in run %s "+
				"(the drive's fill %.1f%% -> %.1f%% of %.0f MiB in %s); over this run's %s that is %.0f MiB, "+
				"and the drive has %.0f MiB left below its %.0f%% limit (fill %.1f%% now). "+
				"Shorten the runs (walab lab --run), give the drive more room, or hold the tables' size (loadgen tpcc --keep-size)",
				it.ID, rate/mib, r.name, 100*a.fill, 100*b.fill, capacity/mib, b.at.Sub(a.at).Round(time.Second),
				it.Expected, need/mib, max(room, 0)/mib, 100*maxFill, 100*fill)
		}
	}
	r := &runFill{name: it.ID, start: time.Now(), expected: it.Expected, capacity: capacity,
		samples: []fillSample{{time.Now(), fill}}}
	sctx, end := context.WithCancel(context.WithoutCancel(ctx))
	g.mu.Lock()
	g.runs = append(g.runs, r)
	g.end = end
	g.mu.Unlock()
	g.wg.Add(1)
	go g.sample(sctx, r)
	return nil
}

const mib = 1 << 20

// sample reads the fill every g.every until the run's planned end or ctx
// is done. From the end of its second round on it projects the fill at
// the run's end from the growth since the first round's end (rate), and
// stops the experiment when that passes maxFill.
func (g *growth) sample(ctx context.Context, r *runFill) {
	defer g.wg.Done()
	t := time.NewTicker(g.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if now.Sub(r.start) > r.expected+2*g.every {
				return // the next reset may follow: its restore is not the run's growth
			}
			fill, _, err := g.read(ctx)
			if err != nil {
				continue // a missed sample is absent; the experiment's own checks judge the exporter
			}
			g.mu.Lock()
			r.samples = append(r.samples, fillSample{now, fill})
			rate, ok := r.rate(g.round)
			g.mu.Unlock()
			elapsed := now.Sub(r.start)
			if !ok || elapsed < 2*g.round || elapsed >= r.expected {
				continue
			}
			left := (r.expected - elapsed).Seconds()
			if at := fill + rate*left/r.capacity; at > maxFill {
				g.stop(fmt.Errorf("run %s stopped after %s: the database grew %.2f MiB/s since the run's first round "+
					"(the drive's fill %.1f%% -> %.1f%% of %.0f MiB), so the drive would pass its %.0f%% limit (%.1f%%) before the run's end in %s. "+
					"Shorten the runs (walab lab --run), give the drive more room, or hold the tables' size (loadgen tpcc --keep-size)",
					r.name, elapsed.Round(time.Second), rate/mib, 100*r.samples[0].fill, 100*fill, r.capacity/mib,
					100*maxFill, 100*at, (r.expected - elapsed).Round(time.Second)))
				return
			}
		}
	}
}

// fillAt is the fill sampled nearest to t within tol; ok false when none is.
func (g *growth) fillAt(t time.Time, tol time.Duration) (float64, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	best, found := time.Duration(math.MaxInt64), false
	var fill float64
	for _, r := range g.runs {
		for _, s := range r.samples {
			if d := s.at.Sub(t).Abs(); d <= tol && d < best {
				best, fill, found = d, s.fill, true
			}
		}
	}
	return fill, found
}

// writeTable writes the verdict's WA per round of both runs with the
// drive's fill at each round's end; a figure the lab does not have is "-".
func (g *growth) writeTable(w io.Writer, res *compare.Result) {
	fmt.Fprintf(w, "WA and the drive's fill per round (fill at the round's end):\n")
	fmt.Fprintf(w, "%5s  %12s %7s  %12s %7s\n", "round", res.Runs[0].ID+" WA", "fill", res.Runs[1].ID+" WA", "fill")
	n := max(len(res.Tables[0]), len(res.Tables[1]))
	for i := range n {
		row := fmt.Sprintf("%5d", i+1)
		for arm := range 2 {
			wa, fill := "-", "-"
			if i < len(res.Tables[arm]) {
				h := res.Tables[arm][i]
				if h.NonZero() {
					wa = fmt.Sprintf("%.2f", h.WA())
				}
				if f, ok := g.fillAt(h.At, 2*g.every); ok {
					fill = fmt.Sprintf("%.1f%%", 100*f)
				}
			}
			row += fmt.Sprintf("  %12s %7s", wa, fill)
		}
		fmt.Fprintln(w, row)
	}
}

// FillFile is the lab's table of WA and fill per round, in its work
// directory (also printed).
const FillFile = "fill.txt"

// writeFillTable writes g's table for the verdict into FillFile and prints it.
func (o Options) writeFillTable(g *growth, verdict *compare.Result) error {
	var b strings.Builder
	g.writeTable(&b, verdict)
	o.printf("%s", strings.TrimRight(b.String(), "\n"))
	return os.WriteFile(filepath.Join(o.Out, FillFile), []byte(b.String()), 0o644)
}
