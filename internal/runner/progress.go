package runner

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/walab/walab/internal/workload"
)

// Progress prints loading progress: on a terminal one line redrawn in place
// (a bar with rows, rate and ETA), otherwise a plain line at most every
// Every. Safe for concurrent use by loaders.
type Progress struct {
	mu      sync.Mutex
	out     io.Writer
	tty     bool
	every   time.Duration
	now     func() time.Time
	start   time.Time
	last    time.Time
	prefix  string
	lastEvt workload.ProgressEvent
	drawn   workload.ProgressEvent // last event printed
}

// NewProgress starts a progress printer; tty selects the redrawn bar.
func NewProgress(out io.Writer, tty bool, prefix string, now func() time.Time) *Progress {
	if now == nil {
		now = time.Now
	}
	every := 5 * time.Second
	if tty {
		every = 200 * time.Millisecond
	}
	t := now()
	return &Progress{out: out, tty: tty, every: every, now: now, start: t, prefix: prefix}
}

// Update is a workload.PrepareOptions.Progress callback.
func (p *Progress) Update(e workload.ProgressEvent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lastEvt = e
	t := p.now()
	if t.Sub(p.last) < p.every && e.Rows < e.TotalRows {
		return
	}
	p.last = t
	p.draw(t)
}

// Done prints the final state and ends the line.
func (p *Progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.tty && p.drawn == p.lastEvt && p.lastEvt.TotalRows > 0 {
		return // already printed
	}
	p.draw(p.now())
	if p.tty {
		fmt.Fprintln(p.out)
	}
}

func (p *Progress) draw(t time.Time) {
	p.drawn = p.lastEvt
	line := progressLine(p.prefix, p.lastEvt, t.Sub(p.start), p.tty)
	if p.tty {
		fmt.Fprintf(p.out, "\r%s\x1b[K", line)
	} else {
		fmt.Fprintln(p.out, line)
	}
}

// progressLine formats rows, percentage, rate and ETA.
func progressLine(prefix string, e workload.ProgressEvent, elapsed time.Duration, bar bool) string {
	pct := 0.0
	if e.TotalRows > 0 {
		pct = 100 * float64(e.Rows) / float64(e.TotalRows)
	}
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(e.Rows) / s
	}
	eta := "?"
	// Under a second the rate says nothing yet.
	if rate > 0 && elapsed >= time.Second && e.TotalRows >= e.Rows {
		eta = time.Duration(float64(e.TotalRows-e.Rows) / rate * float64(time.Second)).Round(time.Second).String()
	}
	s := ""
	if bar {
		const width = 30
		n := min(int(pct/100*width), width)
		s = "["
		for i := range width {
			if i < n {
				s += "#"
			} else {
				s += "."
			}
		}
		s += "] "
	}
	unit := "rows"
	if e.Unit != "" {
		unit = e.Unit
	}
	return fmt.Sprintf("%s%s%d/%d %s (%.1f%%) %.0f %s/s ETA %s", prefix, s, e.Rows, e.TotalRows, unit, pct, rate, unit, eta)
}
