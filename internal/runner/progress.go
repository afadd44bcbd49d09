package runner

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/walab/walab/internal/workload"
)

// Progress prints loading progress: on a terminal a bar redrawn in place
// with rows, rate and ETA (schollz/progressbar), otherwise a plain line at
// most every 5 s. Safe for concurrent use by loaders.
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
	bar     *progressbar.ProgressBar
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

// newBar is the terminal's bar for rows of unit.
func (p *Progress) newBar(total int64, unit string) *progressbar.ProgressBar {
	return progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(p.out),
		progressbar.OptionSetDescription(p.prefix+"loading"),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString(unit),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetRenderBlankState(true),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(p.out) }),
	)
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
	if p.tty {
		p.drawBar(e)
		return
	}
	p.draw(t)
}

// Done prints the final state and ends the line.
func (p *Progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		if p.bar == nil || !p.bar.IsFinished() {
			p.drawBar(p.lastEvt)
		}
		if !p.bar.IsFinished() {
			_ = p.bar.Exit() // stopped before the end: the bar stays as it is; its line ends
		}
		return
	}
	if p.drawn == p.lastEvt && p.lastEvt.TotalRows > 0 {
		return // already printed
	}
	p.draw(p.now())
}

// drawBar moves the terminal's bar to e; the total can grow as the
// workload learns it.
func (p *Progress) drawBar(e workload.ProgressEvent) {
	unit := "rows"
	if e.Unit != "" {
		unit = e.Unit
	}
	total := max(e.TotalRows, e.Rows, 1)
	if p.bar == nil {
		p.bar = p.newBar(total, unit)
	} else if p.bar.GetMax64() != total {
		p.bar.ChangeMax64(total)
	}
	_ = p.bar.Set64(max(e.Rows, 0))
}

func (p *Progress) draw(t time.Time) {
	p.drawn = p.lastEvt
	fmt.Fprintln(p.out, progressLine(p.prefix, p.lastEvt, t.Sub(p.start)))
}

// progressLine formats rows, percentage, rate and ETA.
func progressLine(prefix string, e workload.ProgressEvent, elapsed time.Duration) string {
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
	unit := "rows"
	if e.Unit != "" {
		unit = e.Unit
	}
	return fmt.Sprintf("%s%d/%d %s (%.1f%%) %.0f %s/s ETA %s", prefix, e.Rows, e.TotalRows, unit, pct, rate, unit, eta)
}
