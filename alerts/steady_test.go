package alerts

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/compare"
	"github.com/walab/walab/internal/testenv"
)

// TestSteadyRuleMatchesCompare: the live steady-state rule and walab
// compare's Go detector judge the same hourly WA series alike, hour by
// hour: a warm-up that settles, a disturbance, a return. The expectations
// of the promtool test are computed by compare.SNIA.WindowSteady.
func TestSteadyRuleMatchesCompare(t *testing.T) {
	promtool := testenv.RequireBinary(t, "promtool")
	// Hourly WA, multiples of 1/1024 so every increase ratio is exact.
	wa := []float64{3.0, 2.75, 2.5, 2.4375, 2.421875, 2.40625, 2.40625, 2.4140625, 2.40625, 2.75, 3.0, 2.40625, 2.40625, 2.4140625, 2.40625, 2.40625}
	var nand strings.Builder
	v := 0.0
	fmt.Fprintf(&nand, "%g", v)
	for _, w := range wa {
		for range 60 {
			v += 1024 * w
			fmt.Fprintf(&nand, " %g", v)
		}
	}
	var exp strings.Builder
	steadyHours := 0
	for h := 5; h <= len(wa); h++ {
		want := 0
		if compare.SNIA.WindowSteady(wa[h-5 : h]) {
			want, steadyHours = 1, steadyHours+1
		}
		fmt.Fprintf(&exp, `      - eval_time: %dm
        expr: %s
        exp_samples:
          - labels: '%s{instance="lab:9910",job="walab-exporter",device="nvme0"}'
            value: %d
`, 60*h, WASteady, WASteady, want)
	}
	require.Greater(t, steadyHours, 2, "the series has steady hours")
	require.Less(t, steadyHours, len(wa)-4, "and unsteady ones")
	test := fmt.Sprintf(`rule_files: [rules.yml]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'walab_nvme_host_written_bytes_total{instance="lab:9910",job="walab-exporter",device="nvme0",source="ocp_c0"}'
        values: '0+1024x%d'
      - series: 'walab_nvme_media_written_bytes_total{instance="lab:9910",job="walab-exporter",device="nvme0",source="ocp_c0"}'
        values: '%s'
    promql_expr_test:
%s`, 60*len(wa), nand.String(), exp.String())
	dir := t.TempDir()
	b, err := Generate(prodConfig(t)).Marshal()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "rules.yml"), b, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "steady_test.yml"), []byte(test), 0o644))
	cmd := exec.Command(promtool, "test", "rules", "steady_test.yml")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
}
