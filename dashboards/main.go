// Command dashboards writes walab's Grafana dashboards as JSON into
// deploy/grafana/dashboards/, where Grafana's file provisioning picks them
// up. Run from the repository root: go run ./dashboards
package main

//go:generate sh -c "cd .. && go run ./dashboards"

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/walab/walab/internal/dashboard"
)

// Selectors shared by the panels: the template variables of every board.
const (
	devSel    = `instance=~"$instance",device=~"$device"`
	targetSel = `target=~"$target"`
	rate      = "$__rate_interval"
)

// board is one generated dashboard and the file it goes to.
type board struct {
	file  string
	build func() *dashboard.Builder
}

func boards() []board {
	return []board{
		{"walab-wa-overview.json", waOverview},
		{"walab-run-comparison.json", runComparison},
		{"walab-device-health.json", deviceHealth},
		{"walab-streams-placement.json", streamsPlacement},
		{"walab-irq-cpu.json", irqCPU},
		{"walab-innodb.json", innodb},
		{"walab-load.json", load},
		{"walab-block-devices.json", blockDevices},
		{"walab-raid.json", raid},
		{"walab-fleet.json", fleet},
	}
}

// withVars adds the instance/device/target variables every board filters on.
func withVars(b *dashboard.Builder) *dashboard.Builder {
	b.Variable("instance", "Instance", "label_values(walab_nvme_up, instance)")
	b.Variable("device", "Device", `label_values(walab_nvme_up{instance=~"$instance"}, device)`)
	b.Variable("target", "MySQL target", "label_values(walab_mysql_up, target)")
	return b
}

func main() {
	out := flag.String("out", "deploy/grafana/dashboards", "directory for the dashboard JSON files")
	flag.Parse()
	if err := write(*out); err != nil {
		fmt.Fprintln(os.Stderr, "dashboards:", err)
		os.Exit(1)
	}
}

func write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, bd := range boards() {
		b, err := bd.build().JSON()
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, bd.file), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
