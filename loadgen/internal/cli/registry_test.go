package cli

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/workload"
)

// echoWorkload is registered by this test only: a local workload whose
// terminals count their events and their closes.
type echoWorkload struct {
	word   string
	weight int
	runs   atomic.Int64
	closed atomic.Int64
}

var lastEcho atomic.Pointer[echoWorkload]

func init() {
	workload.Register(workload.Spec{
		Name: "echo_test",
		Help: "a workload registered only by the cli tests",
		Define: func(fs *workload.FlagSet) workload.Factory {
			var word string
			var weight int
			fs.String(&word, "echo-word", "hello", "Word each event says.")
			fs.Int(&weight, "echo-weight", 1, "Statements per event.").Range(1, 10)
			return workload.Factory{Local: func(workload.Target) (workload.Workload, error) {
				w := &echoWorkload{word: word, weight: weight}
				lastEcho.Store(w)
				return w, nil
			}}
		},
	})
}

func (w *echoWorkload) Name() string { return "echo_test" }
func (w *echoWorkload) Prepare(context.Context, workload.PrepareOptions) error {
	return nil
}
func (w *echoWorkload) Check(context.Context) ([]workload.CheckResult, error) {
	return []workload.CheckResult{{Name: "word", Passed: w.word != "", Detail: w.word}}, nil
}
func (w *echoWorkload) Cleanup(context.Context) error { return nil }
func (w *echoWorkload) TxTypes() []string             { return []string{w.word} }
func (w *echoWorkload) NewTerminal(int, *rand.Rand) workload.Terminal {
	return &echoTerminal{w: w}
}

type echoTerminal struct{ w *echoWorkload }

func (t *echoTerminal) Next() string { return t.w.word }

// Run has no connection to get: a local workload's terminal is a core
// workload.Terminal.
func (t *echoTerminal) Run(context.Context, string) (workload.Result, error) {
	t.w.runs.Add(1)
	return workload.Result{Reads: t.w.weight}, nil
}
func (t *echoTerminal) KeyingTime(string) float64 { return 0 }
func (t *echoTerminal) ThinkTime(string) float64  { return 0 }
func (t *echoTerminal) Close() error {
	t.w.closed.Add(1)
	return nil
}

func TestRegistryWorkload(t *testing.T) {
	var help strings.Builder
	require.Zero(t, Main([]string{"--help"}, &help, &help))
	require.Contains(t, help.String(), "echo_test")
	require.Contains(t, help.String(), "a workload registered only by the cli tests")

	help.Reset()
	require.Zero(t, Main([]string{"help", "echo_test", "run"}, &help, &help))
	require.Contains(t, help.String(), "--echo-word")

	var stderr strings.Builder
	require.Equal(t, 2, Main([]string{"echo_test", "run", "--echo-weight=11"}, &stderr, &stderr))
	require.Contains(t, stderr.String(), "--echo-weight=11 out of range 1..10")

	result := filepath.Join(t.TempDir(), "r.json")
	var stdout strings.Builder
	stderr.Reset()
	code := Main([]string{"echo_test", "run", "--echo_word=bonjour", "--echo-weight", "3", "--threads", "3",
		"--events", "30", "--web.disable", "--result-json", result}, &stdout, &stderr)
	require.Zero(t, code, "stdout: %s\nstderr: %s", stdout.String(), stderr.String())
	w := lastEcho.Load()
	require.Equal(t, "bonjour", w.word)
	require.Equal(t, int64(30), w.runs.Load())
	require.Equal(t, int64(3), w.closed.Load(), "the runner closes every terminal it opened")
	require.Contains(t, stdout.String(), "read:                            90")

	var doc struct {
		Results []struct {
			Workload string `json:"workload"`
			Types    []struct {
				Type      string `json:"type"`
				Committed uint64 `json:"committed"`
			} `json:"types"`
		} `json:"results"`
	}
	b, err := os.ReadFile(result)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &doc))
	require.Equal(t, "echo_test", doc.Results[0].Workload)
	require.Equal(t, "bonjour", doc.Results[0].Types[0].Type)
	require.Equal(t, uint64(30), doc.Results[0].Types[0].Committed)

	stdout.Reset()
	require.Zero(t, Main([]string{"echo_test", "check"}, &stdout, &stderr))
	require.Contains(t, stdout.String(), "[local] PASS word: hello")
}

// TestLayering holds the import rules: the command line imports no
// concrete workload (the binary links them in), and imports flow
// workload → driver → runner → loadgen.
func TestLayering(t *testing.T) {
	list := func(args ...string) []string {
		out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
		require.NoError(t, err)
		return strings.Fields(string(out))
	}
	const mod = "github.com/walab/walab/"
	// The concrete workloads are what the binary imports besides the CLI,
	// through internal/allworkloads.
	var concrete []string
	for _, p := range list("-f", `{{join .Imports " "}}`, mod+"loadgen") {
		if strings.HasPrefix(p, mod) && p != mod+"loadgen/internal/cli" {
			concrete = append(concrete, p)
			concrete = append(concrete, list("-f", `{{join .Imports " "}}`, p)...)
		}
	}
	require.Contains(t, concrete, mod+"internal/workload/oltp")
	cliDeps := list("-deps", mod+"loadgen/internal/cli")
	for _, p := range concrete {
		require.NotContains(t, cliDeps, p, "the CLI must not import a concrete workload")
	}
	for _, p := range cliDeps {
		require.False(t, strings.HasPrefix(p, mod+"internal/workload/"), "the CLI imports %s", p)
	}
	for pkg, banned := range map[string][]string{
		"internal/workload": {"internal/driver", "internal/runner", "loadgen/internal/cli"},
		"internal/driver":   {"internal/runner", "loadgen/internal/cli"},
		"internal/runner":   {"loadgen/internal/cli"},
	} {
		deps := list("-deps", mod+pkg)
		for _, b := range banned {
			require.NotContains(t, deps, mod+b, "%s imports %s", pkg, b)
		}
	}
}
