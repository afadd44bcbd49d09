package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"

	"github.com/walab/walab/internal/compare"
)

// execute runs the comparison and writes its text and files: exit 0
// VALID, 3 NOT VALID, 1 error, 2 usage.
func (c *compareCmd) execute(stdout, stderr io.Writer) int {
	fail := func(code int, err error) int {
		// The store's error text is the store's: no terminal escapes.
		fmt.Fprintln(compare.PlainText(stderr), "walab compare:", err)
		return code
	}
	opts, err := c.options(time.Now())
	if err != nil {
		return fail(2, err)
	}
	client, err := api.NewClient(api.Config{Address: c.promURL, RoundTripper: compare.CappedTransport(api.DefaultRoundTripper, compare.MaxResponseBytes)})
	if err != nil {
		return fail(2, fmt.Errorf("--prometheus.url: %w", err))
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	res, err := compare.Compare(ctx, compare.Source{API: v1.NewAPI(client), Step: searchStep(c.lookback), Instance: c.instance}, opts)
	if err != nil {
		return fail(1, err)
	}
	// Everything is rendered before anything is printed or written: an
	// output that cannot be rendered leaves neither half a text nor a file.
	files, err := renderOutputs(res, c.out, c.allowInvalid)
	if err != nil {
		return fail(1, err)
	}
	var text bytes.Buffer
	if err := res.Write(&text, c.allowInvalid); err != nil {
		return fail(1, err)
	}
	if _, err := stdout.Write(text.Bytes()); err != nil {
		return fail(1, err)
	}
	if err := publishOutputs(files); err != nil {
		return fail(1, err)
	}
	if !res.Verdict.Valid {
		return 3
	}
	return 0
}

// rendered is one output file's bytes, not yet written.
type rendered struct {
	flag, path string
	data       []byte
}

// renderOutputs renders the files asked for, all of them before any is
// written, so a comparison that cannot be rendered leaves no file.
func renderOutputs(res *compare.Result, paths outputPaths, allowInvalid bool) ([]rendered, error) {
	render := map[string]func(io.Writer) error{
		"--csv":  func(w io.Writer) error { return compare.WriteCSV(w, res.Runs[:], res.Tables[:]) },
		"--json": res.WriteJSON,
		"--html": func(w io.Writer) error { return res.WriteHTML(w, allowInvalid) },
		"--png":  func(w io.Writer) error { return compare.WritePNG(w, res.ChartSeries()) },
	}
	var out []rendered
	for _, o := range paths.list() {
		if o.path != "" {
			var b bytes.Buffer
			if err := render[o.flag](&b); err != nil {
				return nil, fmt.Errorf("%s: %w (no file written)", o.flag, err)
			}
			out = append(out, rendered{o.flag, o.path, b.Bytes()})
		}
	}
	return out, nil
}

// publishOutputs writes each file whole (publish): walab never overwrites
// a file, its own or not.
func publishOutputs(files []rendered) error {
	for _, f := range files {
		if err := publish(f.path, f.data); err != nil {
			return fmt.Errorf("%s: %w (choose a new file)", f.flag, err)
		}
	}
	return nil
}

// searchStep is the resolution of the run search: a second when the
// lookback is short enough (a range query holds at most ~10000 steps), so
// that a run shorter than a minute is found; never coarser than a minute.
func searchStep(lookback time.Duration) time.Duration {
	return min(time.Minute, max(time.Second, lookback/10000))
}
