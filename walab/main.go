// Command walab holds lab utilities. `walab compare` prints seed 000's
// hourly WA table for a baseline and a candidate loadgen run from
// Prometheus, the last 12 non-zero hours of each and the WA reduction, and
// can write the tables as CSV and a PNG chart. See docs/lab.md.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"

	"github.com/walab/walab/internal/compare"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	app := kingpin.New("walab", "walab lab utilities.")
	app.UsageWriter(stderr)
	app.ErrorWriter(stderr)
	app.Terminate(nil)
	cmp := app.Command("compare", "Compare the hourly WA of a candidate run with a baseline run.")
	promURL := cmp.Flag("prometheus.url", "Prometheus base URL.").Default("http://127.0.0.1:9090").String()
	baseline := cmp.Flag("baseline", "Baseline run id (walab_loadgen_run_info{run_id}).").Required().String()
	candidate := cmp.Flag("candidate", "Candidate run id.").Required().String()
	device := cmp.Flag("device", "Device (the exporter's device label).").Default("nvme0").String()
	lookback := cmp.Flag("lookback", "How far back to search for the runs.").Default("720h").Duration()
	last := cmp.Flag("last-hours", "Non-zero hours at the end of each run to compare (seed 000: 12).").Default("12").Int()
	csvPath := cmp.Flag("csv", "Write both hourly tables to this CSV file.").String()
	pngPath := cmp.Flag("png", "Draw both runs' hourly WA into this PNG file.").String()
	timeout := cmp.Flag("timeout", "Overall timeout.").Default("1m").Duration()
	exp := defineExperiment(app)

	cmd, err := app.Parse(args)
	if err != nil {
		fmt.Fprintln(stderr, "walab:", err)
		return 2
	}
	if exp.handles(cmd) {
		return exp.execute(cmd, stdout, stderr)
	}
	if cmd != cmp.FullCommand() {
		return 0 // --help
	}
	client, err := api.NewClient(api.Config{Address: *promURL})
	if err != nil {
		fmt.Fprintln(stderr, "walab compare:", err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	now := time.Now()
	res, err := compare.Compare(ctx, compare.Source{API: v1.NewAPI(client)}, compare.Options{
		Baseline: *baseline, Candidate: *candidate, Device: *device,
		From: now.Add(-*lookback), To: now, LastHours: *last,
	})
	if err != nil {
		fmt.Fprintln(stderr, "walab compare:", err)
		return 1
	}
	if err := res.Write(stdout, *last); err != nil {
		fmt.Fprintln(stderr, "walab compare:", err)
		return 1
	}
	if err := writeOutputs(res, *csvPath, *pngPath); err != nil {
		fmt.Fprintln(stderr, "walab compare:", err)
		return 1
	}
	return 0
}

func writeOutputs(res *compare.Result, csvPath, pngPath string) error {
	write := func(path string, fn func(io.Writer) error) error {
		if path == "" {
			return nil
		}
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := fn(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	if err := write(csvPath, func(w io.Writer) error {
		return compare.WriteCSV(w, res.Runs[:], res.Tables[:])
	}); err != nil {
		return err
	}
	return write(pngPath, func(w io.Writer) error {
		return compare.WritePNG(w, []compare.Series{
			{Name: res.Runs[0].ID, Hours: res.Tables[0]},
			{Name: res.Runs[1].ID, Hours: res.Tables[1]},
		})
	})
}
