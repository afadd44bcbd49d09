package compare_test

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/walab/walab/internal/compare"
)

// checkReport parses an HTML report: it is HTML, its chart decodes as a
// PNG of the chart's size that is not blank, and it carries the verdict
// line, the checks and the text tables.
func checkReport(t *testing.T, res *compare.Result, allowInvalid bool) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, res.WriteHTML(&b, allowInvalid))
	doc, err := html.Parse(bytes.NewReader(b.Bytes()))
	require.NoError(t, err)
	var src string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "img" {
			for _, a := range n.Attr {
				if a.Key == "src" {
					src = a.Val
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	data, ok := strings.CutPrefix(src, "data:image/png;base64,")
	require.True(t, ok, "the chart is embedded")
	raw, err := base64.StdEncoding.DecodeString(data)
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(raw))
	require.NoError(t, err)
	require.Greater(t, img.Bounds().Dx(), 400)
	colors := map[uint32]bool{}
	for x := 0; x < img.Bounds().Dx(); x += 7 {
		for y := 0; y < img.Bounds().Dy(); y += 7 {
			r, g, bb, _ := img.At(x, y).RGBA()
			colors[r<<16^g<<8^bb] = true
		}
	}
	require.Greater(t, len(colors), 3, "the chart is not blank")
	out := b.String()
	require.Contains(t, out, html.EscapeString(res.Verdict.Headline(res)))
	for _, c := range res.Verdict.Checks {
		require.Contains(t, out, html.EscapeString(c.Name))
	}
	if dir := os.Getenv("WALAB_REPORT_DIR"); dir != "" { // to look at it in a browser
		require.NoError(t, os.WriteFile(filepath.Join(dir, t.Name()+".html"), b.Bytes(), 0o644))
	}
	return out
}
