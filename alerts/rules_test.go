package alerts

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/walab/walab/internal/golden"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/walab/walab/internal/testenv"
)

const (
	ruleFile = "walab.rules.yml"
	k8sFile  = "../deploy/k8s/prometheusrule.yaml"
)

func prodConfig(t *testing.T) Config {
	t.Helper()
	c, err := LoadConfig("config.yml")
	require.NoError(t, err)
	return c
}

// TestGeneratedFilesUpToDate: the committed rule file and PrometheusRule are
// the generator's output for config.yml (golden; -update rewrites them).
func TestGeneratedFilesUpToDate(t *testing.T) {
	f := Generate(prodConfig(t))
	for _, tc := range []struct {
		path string
		gen  func() ([]byte, error)
	}{
		{ruleFile, f.Marshal},
		{k8sFile, f.MarshalK8s},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			want, err := tc.gen()
			require.NoError(t, err)
			if golden.Update() {
				require.NoError(t, os.WriteFile(tc.path, want, 0o644))
				return
			}
			got, err := os.ReadFile(tc.path)
			require.NoError(t, err)
			require.Equal(t, string(want), string(got), "run `go run ./alerts/gen` (or go test ./alerts -update)")
		})
	}
}

// TestK8sCarriesSameGroups: the PrometheusRule's spec is the rule file.
func TestK8sCarriesSameGroups(t *testing.T) {
	var rules RuleFile
	b, err := os.ReadFile(ruleFile)
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(b, &rules))
	var obj PrometheusRule
	b, err = os.ReadFile(k8sFile)
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(b, &obj))
	require.Equal(t, "PrometheusRule", obj.Kind)
	require.Equal(t, rules, obj.Spec)
}

func TestPromtoolCheckRules(t *testing.T) {
	promtool := testenv.RequireBinary(t, "promtool")
	out, err := exec.Command(promtool, "check", "rules", ruleFile).CombinedOutput()
	require.NoError(t, err, "%s", out)
}

// TestPromtoolUnitTests runs tests/*_test.yml against rules generated from
// config.yml with tests/config.yml's overrides.
func TestPromtoolUnitTests(t *testing.T) {
	promtool := testenv.RequireBinary(t, "promtool")
	c, err := Override(prodConfig(t), "tests/config.yml")
	require.NoError(t, err)
	b, err := Generate(c).Marshal()
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, ruleFile), b, 0o644))
	tests, err := filepath.Glob("tests/*_test.yml")
	require.NoError(t, err)
	require.NotEmpty(t, tests)
	args := []string{"test", "rules"}
	for _, p := range tests {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(p)), b, 0o644))
		args = append(args, filepath.Base(p))
	}
	cmd := exec.Command(promtool, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
}

// TestEveryAlertIsTested: each alert appears in some promtool test file.
func TestEveryAlertIsTested(t *testing.T) {
	c, err := Override(prodConfig(t), "tests/config.yml")
	require.NoError(t, err)
	tests, err := filepath.Glob("tests/*_test.yml")
	require.NoError(t, err)
	var all []byte
	for _, p := range tests {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		all = append(all, b...)
	}
	for _, name := range Generate(c).AlertNames() {
		require.Contains(t, string(all), "alertname: "+name+"\n", "alert %s has no promtool test", name)
	}
}
