// Command gen writes walab's rule files from alerts/config.yml:
// alerts/walab.rules.yml and deploy/k8s/prometheusrule.yaml.
// Run from the repository root: go run ./alerts/gen
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/walab/walab/alerts"
)

func main() {
	cfgPath := flag.String("config", "alerts/config.yml", "rules config")
	out := flag.String("out", "alerts/walab.rules.yml", "rule file to write")
	k8s := flag.String("k8s", "deploy/k8s/prometheusrule.yaml", "PrometheusRule to write (empty: none)")
	override := flag.String("override", "", "YAML read over -config (shortened windows for a test stack, as alerts/tests/config.yml); empty: none")
	flag.Parse()
	if err := run(*cfgPath, *override, *out, *k8s); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(cfgPath, override, out, k8s string) error {
	cfg, err := alerts.LoadConfig(cfgPath)
	if err != nil {
		return err
	}
	if override != "" {
		if cfg, err = alerts.Override(cfg, override); err != nil {
			return err
		}
	}
	f := alerts.Generate(cfg)
	b, err := f.Marshal()
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return err
	}
	if k8s == "" {
		return nil
	}
	b, err = f.MarshalK8s()
	if err != nil {
		return err
	}
	return os.WriteFile(k8s, b, 0o644)
}
