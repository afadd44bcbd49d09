package compare

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"strconv"
)

// Series is one line of the chart: WA per hour of one run.
type Series struct {
	Name  string
	Hours []Hour
}

// Chart geometry.
const (
	chartW, chartH = 800, 400
	marginL        = 50
	marginB        = 30
	marginT        = 20
	marginR        = 20
)

var (
	white   = color.RGBA{255, 255, 255, 255}
	black   = color.RGBA{0, 0, 0, 255}
	grey    = color.RGBA{220, 220, 220, 255}
	palette = []color.RGBA{{31, 119, 180, 255}, {214, 39, 40, 255}, {44, 160, 44, 255}, {148, 103, 189, 255}}
)

// WritePNG draws hourly WA of each series as a line chart: x = hours since
// the run's start, y = WA from 1 (WA is never lower) up. Axis ticks carry
// numbers in a tiny built-in digit font; the line colours follow the series
// order (blue baseline, red candidate); the CSV has the exact values.
func WritePNG(w io.Writer, series []Series) error {
	maxHour, maxWA := 1, 1.0
	for _, s := range series {
		for _, h := range s.Hours {
			maxHour = max(maxHour, h.Hour)
			if wa := h.WA(); !math.IsInf(wa, 0) && !math.IsNaN(wa) {
				maxWA = max(maxWA, wa)
			}
		}
	}
	top := math.Ceil(maxWA*2) / 2 // next 0.5 above the data
	if top <= 1 {
		top = 1.5
	}
	img := image.NewRGBA(image.Rect(0, 0, chartW, chartH))
	fill(img, img.Bounds(), white)
	plotW, plotH := chartW-marginL-marginR, chartH-marginT-marginB
	x := func(hour int) int { return marginL + hour*plotW/maxHour }
	y := func(wa float64) int { return marginT + plotH - int(math.Round((wa-1)/(top-1)*float64(plotH))) }

	// Grid and y ticks every 0.5 WA, x ticks every hour (labels every few).
	for v := 1.0; v <= top+1e-9; v += 0.5 {
		hline(img, marginL, marginL+plotW, y(v), grey)
		drawText(img, marginL-4-textWidth(fmtTick(v)), y(v)-2, fmtTick(v), black)
	}
	every := max(1, maxHour/12)
	for h := 0; h <= maxHour; h++ {
		vline(img, x(h), marginT+plotH, marginT+plotH+4, black)
		if h%every == 0 {
			s := strconv.Itoa(h)
			drawText(img, x(h)-textWidth(s)/2, marginT+plotH+8, s, black)
		}
	}
	hline(img, marginL, marginL+plotW, marginT+plotH, black)
	vline(img, marginL, marginT, marginT+plotH, black)

	for i, s := range series {
		c := palette[i%len(palette)]
		// Legend: a coloured box per series, in order, top right.
		fill(img, image.Rect(chartW-marginR-14*(len(series)-i), 4, chartW-marginR-14*(len(series)-i)+10, 14), c)
		prevX, prevY, have := 0, 0, false
		for _, h := range s.Hours {
			if !h.NonZero() {
				have = false
				continue
			}
			px, py := x(h.Hour), y(min(h.WA(), top))
			fill(img, image.Rect(px-2, py-2, px+3, py+3), c)
			if have {
				line(img, prevX, prevY, px, py, c)
			}
			prevX, prevY, have = px, py, true
		}
	}
	if err := png.Encode(w, img); err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	return nil
}

func fmtTick(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func fill(img *image.RGBA, r image.Rectangle, c color.Color) {
	draw.Draw(img, r.Intersect(img.Bounds()), image.NewUniform(c), image.Point{}, draw.Src)
}

func hline(img *image.RGBA, x0, x1, y int, c color.Color) { fill(img, image.Rect(x0, y, x1+1, y+1), c) }
func vline(img *image.RGBA, x, y0, y1 int, c color.Color) { fill(img, image.Rect(x, y0, x+1, y1+1), c) }

// line draws a 2-pixel line with Bresenham's algorithm.
func line(img *image.RGBA, x0, y0, x1, y1 int, c color.Color) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := sign(x1-x0), sign(y1-y0)
	e := dx + dy
	for {
		img.Set(x0, y0, c)
		img.Set(x0, y0+1, c)
		if x0 == x1 && y0 == y1 {
			return
		}
		if e2 := 2 * e; e2 >= dy {
			e += dy
			x0 += sx
		} else {
			e += dx
			y0 += sy
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func sign(v int) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// glyphs is a 3x5 pixel font for tick labels: each row is 3 bits, top first.
var glyphs = map[rune][5]uint8{
	'0': {7, 5, 5, 5, 7}, '1': {2, 6, 2, 2, 7}, '2': {7, 1, 7, 4, 7}, '3': {7, 1, 7, 1, 7},
	'4': {5, 5, 7, 1, 1}, '5': {7, 4, 7, 1, 7}, '6': {7, 4, 7, 5, 7}, '7': {7, 1, 1, 1, 1},
	'8': {7, 5, 7, 5, 7}, '9': {7, 5, 7, 1, 7}, '.': {0, 0, 0, 0, 2},
}

const glyphScale = 2

func textWidth(s string) int { return len(s) * 4 * glyphScale }

func drawText(img *image.RGBA, x, y int, s string, c color.Color) {
	for i, r := range s {
		g := glyphs[r]
		for row := 0; row < 5; row++ {
			for col := 0; col < 3; col++ {
				if g[row]&(4>>col) != 0 {
					px, py := x+(i*4+col)*glyphScale, y+row*glyphScale
					fill(img, image.Rect(px, py, px+glyphScale, py+glyphScale), c)
				}
			}
		}
	}
}
