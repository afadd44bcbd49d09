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
	// SteadyFrom, when > 0, shades the rounds from that one on (the run's
	// steady-state window and after).
	SteadyFrom int
	// Throughput is committed transactions per second by round (the
	// compared rounds that have the loadgen counter); drawn in a second
	// panel under the WA when any series has it.
	Throughput map[int]float64
}

// ChartSeries are the comparison's two runs as chart series: WA per
// round, the steady span, and throughput over the compared rounds.
func (r *Result) ChartSeries() []Series {
	out := make([]Series, 2)
	for i, role := range roles {
		s := Series{Name: role + " " + r.Runs[i].ID, Hours: r.Tables[i], SteadyFrom: r.SteadyAt[i]}
		for k, h := range r.Last[i] {
			if k < len(r.Facts[i].Txn) && r.Facts[i].Txn[k] != nil {
				if s.Throughput == nil {
					s.Throughput = map[int]float64{}
				}
				s.Throughput[h.Hour] = *r.Facts[i].Txn[k] / r.Round.Seconds()
			}
		}
		out[i] = s
	}
	return out
}

// throughputH is the height in pixels of the throughput panel.
const throughputH = 260

// Chart size in pixels.
const chartW, chartH = 900, 450

// palette: blue baseline, red candidate, then more.
var palette = []color.RGBA{{31, 119, 180, 255}, {214, 39, 40, 255}, {44, 160, 44, 255}, {148, 103, 189, 255}}

// WritePNG draws each series' WA per round (x: rounds since the run's own
// start) with gonum/plot. Idle and missing rounds are gaps in the line,
// never points at 0; a steady-state span is shaded in the series' colour.
// The CSV and JSON carry the exact values.
func WritePNG(w io.Writer, series []Series) error {
	p := plot.New()
	p.Title.Text = "Write amplification per round"
	p.X.Label.Text = "round since the run's start"
	p.Y.Label.Text = "WA (NAND bytes / host bytes)"
	p.Add(plotter.NewGrid())
	p.Legend.Top = false // WA climbs from the lower left: the lower right is free

	// The frame first, so the shading can go under the lines.
	maxX, lo, hi := 1.0, math.Inf(1), math.Inf(-1)
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
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, maxX+0.5, lo, hi

	for i, s := range series {
		if s.SteadyFrom <= 0 || float64(s.SteadyFrom) > maxX {
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
		x0 := float64(s.SteadyFrom) - 0.5
		poly, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: y0}, {X: maxX + 0.5, Y: y0}, {X: maxX + 0.5, Y: y1}, {X: x0, Y: y1}})
		if err != nil {
			return fmt.Errorf("chart: %w", err)
		}
		poly.Color = color.NRGBA{R: c.R, G: c.G, B: c.B, A: 35}
		poly.LineStyle.Width = 0
		p.Add(poly)
		p.Legend.Add(fmt.Sprintf("%s: steady from round %d", s.Name, s.SteadyFrom), poly)
	}
	for i, s := range series {
		c := palette[i%len(palette)]
		var seg plotter.XYs
		flush := func() error {
			if len(seg) == 0 {
				return nil
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
			seg = nil
			return nil
		}
		for _, h := range s.Hours {
			wa, ok := chartWA(h)
			if !ok {
				if err := flush(); err != nil {
					return fmt.Errorf("chart: %w", err)
				}
				continue
			}
			seg = append(seg, plotter.XY{X: float64(h.Hour), Y: min(wa, hi)})
		}
		if err := flush(); err != nil {
			return fmt.Errorf("chart: %w", err)
		}
		sw, err := plotter.NewLine(plotter.XYs{})
		if err != nil {
			return fmt.Errorf("chart: %w", err)
		}
		sw.Color, sw.Width = c, vg.Points(3)
		p.Legend.Add(s.Name, sw)
	}
	tp, err := throughputPlot(series, maxX)
	if err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	px := func(n int) vg.Length { return vg.Length(n) * vg.Inch / 96 }
	if tp == nil {
		img := vgimg.New(px(chartW), px(chartH))
		p.Draw(draw.New(img))
		if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w); err != nil {
			return fmt.Errorf("chart: %w", err)
		}
		return nil
	}
	img := vgimg.New(px(chartW), px(chartH+throughputH))
	dc := draw.New(img)
	p.Draw(draw.Crop(dc, 0, 0, px(throughputH), 0))
	tp.Draw(draw.Crop(dc, 0, 0, 0, -px(chartH)))
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w); err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	return nil
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

// throughputPlot draws each series' committed transactions per second over
// its compared rounds, on the WA panel's round axis; nil when no series
// has throughput.
func throughputPlot(series []Series, maxX float64) (*plot.Plot, error) {
	any := false
	for _, s := range series {
		any = any || len(s.Throughput) > 0
	}
	if !any {
		return nil, nil
	}
	p := plot.New()
	p.Title.Text = "Throughput over the compared rounds"
	p.X.Label.Text = "round since the run's start"
	p.Y.Label.Text = "committed transactions / s"
	p.Add(plotter.NewGrid())
	p.X.Min, p.X.Max, p.Y.Min = 0, maxX+0.5, 0
	p.Legend.Top = false
	for i, s := range series {
		if len(s.Throughput) == 0 {
			continue
		}
		rounds := make([]int, 0, len(s.Throughput))
		for h := range s.Throughput {
			rounds = append(rounds, h)
		}
		sort.Ints(rounds)
		var xy plotter.XYs
		for _, h := range rounds {
			xy = append(xy, plotter.XY{X: float64(h), Y: s.Throughput[h]})
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, err
		}
		c := palette[i%len(palette)]
		l.Color, pts.Color = c, c
		l.Width = vg.Points(1.5)
		pts.Shape = draw.CircleGlyph{}
		pts.Radius = vg.Points(2)
		p.Add(l, pts)
		p.Legend.Add(s.Name, l)
	}
	return p, nil
}
