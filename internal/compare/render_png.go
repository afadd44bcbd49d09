package compare

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Series is one line of the chart: WA per round of one run.
type Series struct {
	Name  string
	Hours []Hour
	// Compared, when its first is > 0, shades exactly the rounds the
	// verdict compares: first to last, both included.
	Compared [2]int
	// Throughput is committed transactions per second by round (the
	// compared rounds that have it); drawn in a panel under the WA when
	// any series has it. P95 is the transaction latency's 95th
	// percentile by round, in milliseconds, in the panel under that.
	Throughput, P95 map[int]float64
}

// ChartSeries are the comparison's two runs as chart series: WA per
// round, the steady span, and throughput over the compared rounds.
func (r *Result) ChartSeries() []Series {
	out := make([]Series, 2)
	for i, role := range roles {
		s := Series{Name: role + " " + r.Runs[i].ID, Hours: r.Tables[i]}
		if l := r.Last[i]; len(l) > 0 {
			s.Compared = [2]int{l[0].Hour, l[len(l)-1].Hour}
		}
		s.Throughput = byRound(r.Perf[i], r.Facts[i].Txn, 1/r.Round.Seconds())
		s.P95 = byRound(r.Perf[i], r.Facts[i].P95Rounds, 1000)
		out[i] = s
	}
	return out
}

// byRound maps the compared rounds' figures (xs[k] of round compared[k]),
// scaled by k; rounds without the figure are not in the map.
func byRound(compared []Hour, xs []*float64, k float64) map[int]float64 {
	var out map[int]float64
	for i, h := range compared {
		if i < len(xs) && xs[i] != nil {
			if out == nil {
				out = map[int]float64{}
			}
			out[h.Hour] = *xs[i] * k
		}
	}
	return out
}

// panelH is the height in pixels of each panel under the WA panel.
const panelH = 260

// Chart size in pixels.
const chartW, chartH = 900, 450

// palette: blue baseline, red candidate, then more.
var palette = []color.RGBA{{31, 119, 180, 255}, {214, 39, 40, 255}, {44, 160, 44, 255}, {148, 103, 189, 255}}

// WritePNG draws each series' WA per round (x: rounds since the run's own
// start) with gonum/plot. Idle and missing rounds are gaps in the line,
// never points at 0; the compared rounds are shaded in the series' colour.
// The CSV and JSON carry the exact values.
func WritePNG(w io.Writer, series []Series) error {
	p := plot.New()
	p.Title.Text = "Write amplification per round"
	p.X.Label.Text = "round since the run's start"
	p.Y.Label.Text = "WA (NAND bytes / host bytes)"
	p.Add(plotter.NewGrid())
	p.Legend.Top = false // WA climbs from the lower left: the lower right is free

	// The frame first, so the shading can go under the lines.
	maxX, lo, hi := waFrame(series)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, maxX+0.5, lo, hi
	if err := shadeCompared(p, series, lo, hi); err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	if err := addWALines(p, series, hi); err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	var below []*plot.Plot
	for _, pn := range panels {
		pp, err := panelPlot(series, maxX, pn)
		if err != nil {
			return fmt.Errorf("chart: %w", err)
		}
		if pp != nil {
			below = append(below, pp)
		}
	}
	if err := writeStacked(w, p, below); err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	return nil
}

// waFrame is the WA panel's frame: the last round, and the WA range with
// the floor of 1 in view and 5% headroom.
func waFrame(series []Series) (maxX, lo, hi float64) {
	maxX, lo, hi = 1.0, math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, h := range s.Hours {
			maxX = max(maxX, float64(h.Hour))
			if wa, ok := chartWA(h); ok {
				lo, hi = min(lo, wa), max(hi, wa)
			}
		}
	}
	if math.IsInf(lo, 0) {
		lo, hi = 1, 2 // no round with a WA: an empty frame
	}
	lo = min(lo, 1) // WA is never below 1: keep the floor in view
	if hi <= lo {
		hi = lo + 1
	}
	hi += (hi - lo) * 0.05
	return maxX, lo, hi
}

// shadeCompared shades each series' compared rounds in its colour.
func shadeCompared(p *plot.Plot, series []Series, lo, hi float64) error {
	for i, s := range series {
		if s.Compared[0] <= 0 || s.Compared[1] < s.Compared[0] {
			continue
		}
		c := palette[i%len(palette)]
		// Each run's shade covers its own half of the frame (baseline upper,
		// candidate lower) so two steady spans stay readable.
		y0, y1 := lo, hi
		if len(series) == 2 {
			mid := (lo + hi) / 2
			if i == 0 {
				y0 = mid
			} else {
				y1 = mid
			}
		}
		x0, x1 := float64(s.Compared[0])-0.5, float64(s.Compared[1])+0.5
		poly, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
		if err != nil {
			return err
		}
		poly.Color = color.NRGBA{R: c.R, G: c.G, B: c.B, A: 35}
		poly.LineStyle.Width = 0
		p.Add(poly)
		p.Legend.Add(fmt.Sprintf("%s: compared rounds %d–%d", s.Name, s.Compared[0], s.Compared[1]), poly)
	}
	return nil
}

// addWALines draws each series' WA, capped at hi, with a gap at each
// idle or missing round.
func addWALines(p *plot.Plot, series []Series, hi float64) error {
	for i, s := range series {
		var segs []plotter.XYs
		var seg plotter.XYs
		for _, h := range s.Hours {
			wa, ok := chartWA(h)
			if !ok { // idle or missing: a gap
				segs, seg = append(segs, seg), nil
				continue
			}
			seg = append(seg, plotter.XY{X: float64(h.Hour), Y: min(wa, hi)})
		}
		if err := addSeries(p, s.Name, palette[i%len(palette)], append(segs, seg)); err != nil {
			return err
		}
	}
	return nil
}

// writeStacked writes the WA panel p with the panels below it as one PNG.
func writeStacked(w io.Writer, p *plot.Plot, below []*plot.Plot) error {
	px := func(n int) vg.Length { return vg.Length(n) * vg.Inch / 96 }
	img := vgimg.New(px(chartW), px(chartH+len(below)*panelH))
	dc := draw.New(img)
	// draw.Crop(c, left, right, bottom, top): the WA panel on top, each
	// panel below it in order.
	p.Draw(draw.Crop(dc, 0, 0, px(len(below)*panelH), 0))
	for k, pp := range below {
		pp.Draw(draw.Crop(dc, 0, 0, px((len(below)-1-k)*panelH), -px(chartH+k*panelH)))
	}
	_, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w)
	return err
}

// chartWA is a round's WA when it has one to draw: idle and missing rounds
// (and values no chart can hold) are gaps.
func chartWA(h Hour) (float64, bool) {
	wa := h.WA()
	if !h.NonZero() || math.IsNaN(wa) || math.IsInf(wa, 0) || math.Abs(wa) > 1e12 {
		return 0, false
	}
	return wa, true
}

// panel is a plot under the WA panel: one figure per round of each
// series, over the compared rounds, on the WA panel's round axis.
type panel struct {
	title, y string
	of       func(Series) map[int]float64
}

// panels are the plots under the WA panel, in order.
var panels = []panel{
	{"Throughput over the compared rounds", "committed transactions / s", func(s Series) map[int]float64 { return s.Throughput }},
	{"Transaction latency p95 over the compared rounds", "p95 latency (ms)", func(s Series) map[int]float64 { return s.P95 }},
}

// panelPlot draws a panel; nil when no series has its figure. Rounds
// without the figure are gaps in the line.
func panelPlot(series []Series, maxX float64, pn panel) (*plot.Plot, error) {
	any := false
	for _, s := range series {
		any = any || len(pn.of(s)) > 0
	}
	if !any {
		return nil, nil
	}
	p := plot.New()
	p.Title.Text = pn.title
	p.X.Label.Text = "round since the run's start"
	p.Y.Label.Text = pn.y
	p.Add(plotter.NewGrid())
	p.X.Min, p.X.Max, p.Y.Min = 0, maxX+0.5, 0
	for _, s := range series {
		for _, y := range pn.of(s) {
			p.Y.Max = max(p.Y.Max, y*1.15) // headroom: the top line stays off the frame
		}
	}
	p.Legend.Top = false
	for i, s := range series {
		m := pn.of(s)
		if len(m) == 0 {
			continue
		}
		rounds := make([]int, 0, len(m))
		for h := range m {
			rounds = append(rounds, h)
		}
		sort.Ints(rounds)
		var segs []plotter.XYs
		var seg plotter.XYs
		for k, h := range rounds {
			if k > 0 && h != rounds[k-1]+1 { // a round without the figure: a gap
				segs, seg = append(segs, seg), nil
			}
			seg = append(seg, plotter.XY{X: float64(h), Y: m[h]})
		}
		if err := addSeries(p, s.Name, palette[i%len(palette)], append(segs, seg)); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// addSeries draws one series as lines with points, one line per segment
// (gaps between them), in colour c, and names it in the legend.
func addSeries(p *plot.Plot, name string, c color.Color, segs []plotter.XYs) error {
	for _, seg := range segs {
		if len(seg) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(seg)
		if err != nil {
			return err
		}
		l.Color, pts.Color = c, c
		l.Width = vg.Points(1.5)
		pts.Shape = draw.CircleGlyph{}
		pts.Radius = vg.Points(2)
		p.Add(l, pts)
	}
	sw, err := plotter.NewLine(plotter.XYs{})
	if err != nil {
		return err
	}
	sw.Color, sw.Width = c, vg.Points(3)
	p.Legend.Add(name, sw)
	return nil
}
