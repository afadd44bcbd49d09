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
	if err := res.Write(stdout, c.allowInvalid); err != nil {
		return fail(1, err)
	}
	if err := writeOutputs(res, c.out, c.allowInvalid); err != nil {
		return fail(1, err)
	}
	if !res.Verdict.Valid {
		return 3
	}
	return 0
}

// writeOutputs writes the files asked for. All are rendered first, so a
// comparison that cannot be rendered leaves no file; each is then
// published whole (publish): walab never overwrites a file, its own or not.
func writeOutputs(res *compare.Result, paths outputPaths, allowInvalid bool) error {
	render := map[string]func(io.Writer) error{
		"--csv":  func(w io.Writer) error { return compare.WriteCSV(w, res.Runs[:], res.Tables[:]) },
		"--json": res.WriteJSON,
		"--html": func(w io.Writer) error { return res.WriteHTML(w, allowInvalid) },
		"--png":  func(w io.Writer) error { return compare.WritePNG(w, res.ChartSeries()) },
	}
	outs := paths.list()
	data := make([]bytes.Buffer, len(outs))
	for i, o := range outs {
		if o.path != "" {
			if err := render[o.flag](&data[i]); err != nil {
				return fmt.Errorf("%s: %w (no file written)", o.flag, err)
			}
		}
	}
	for i, o := range outs {
		if o.path != "" {
			if err := publish(o.path, data[i].Bytes()); err != nil {
				return fmt.Errorf("%s: %w (choose a new file)", o.flag, err)
			}
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
