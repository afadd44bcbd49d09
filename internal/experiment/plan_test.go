package experiment

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/golden"
)

// assertGolden compares got with testdata/<name>; -update rewrites it.
func assertGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Assert(t, filepath.Join("testdata", name), got)
}

// TestParseErrorsGolden: every bad plan under testdata/plans gets all its
// errors, with lines, as the user sees them.
func TestParseErrorsGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/plans/*.yml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yml")
		if name == "good" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			_, err = Parse(data)
			require.Error(t, err, "a bad plan must be refused")
			assertGolden(t, "plans/"+name+".err", []byte(err.Error()+"\n"))
		})
	}
}

func TestParseGood(t *testing.T) {
	data, err := os.ReadFile("testdata/plans/good.yml")
	require.NoError(t, err)
	p, err := Parse(data)
	require.NoError(t, err)
	require.Equal(t, "seed000", p.Name)
	require.Len(t, p.Targets, 2)
	require.Equal(t, 12*time.Hour, p.Runs[0].Duration.D())
	require.Equal(t, 12*time.Hour, p.Runs[1].Duration.D())
	require.Equal(t, 2, p.Runs[1].Repeat)
	require.True(t, p.Reset[0].Destructive)
	require.Equal(t, 1.5, p.Precondition[0].Written)
	require.Equal(t, plan.ByteSize(20<<30), p.Checks[4].Bytes)
	require.Equal(t, "warn", p.Checks[3].OnFail)
	require.Equal(t, 28, p.Runs[1].Line)
}

// FuzzParse: no input panics or hangs, and an accepted plan satisfies the
// invariants the executor relies on.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/plans/*.yml")
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if len(p.Runs) == 0 || !regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,47}$`).MatchString(p.Name) {
			t.Fatalf("accepted plan without runs or name: %+v", p)
		}
		for _, r := range p.Runs {
			if r.Workload != "" && (len(r.Targets) == 0 || r.Duration.D() < time.Second) {
				t.Fatalf("accepted loadgen run without targets or duration: %+v", r)
			}
		}
		if _, err := plan.Steps(p); err != nil {
			t.Fatalf("accepted plan does not flatten: %v", err)
		}
	})
}
