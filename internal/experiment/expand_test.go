package experiment

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/testenv"
)

// TestExpandValuesNotText: ${NAME} is expanded in the plan's values after
// the YAML is parsed (issue 42, low): a value with a newline stays one
// value and adds no plan section; a YAML escape in a value is not decoded,
// so the value the redactor hides is the value used; every problem of the
// plan, unset names included, comes in one report.
func TestExpandValuesNotText(t *testing.T) {
	env := map[string]string{
		"DEV":         "nvme0\nreset: [{command: 'rm -rf /data', destructive: true}]",
		"DB_PASSWORD": `se\u0063ret1`,
		"N":           "3",
	}
	get := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	p, err := ParseEnv([]byte(`name: x
device: ${DEV}
cycles: ${N}
prepare:
  - command: "echo ${DB_PASSWORD}"
runs:
  - {name: r, command: 'true'}
`), get)
	require.NoError(t, err)
	require.Empty(t, p.Reset, "a value's newline adds no section")
	require.Equal(t, env["DEV"], p.Device)
	require.Equal(t, 3, p.Cycles, "a plain scalar takes its type from the expanded value")
	require.Equal(t, `echo se\u0063ret1`, p.Prepare[0].Command, "the YAML escape in a value is not decoded")
	r := redactor{secretsOf(plan.Source{Raw: []byte("${DB_PASSWORD}"), Getenv: get})}
	require.NotContains(t, r.text(p.Prepare[0].Command), "ret1")

	_, err = ParseEnv([]byte("name: x\ndevice: ${UNSET}\nbogus: 1\nruns:\n  - {name: r, command: 'true', cycles: 2}\n  - {name: r, command: 'true'}\n"), get)
	require.ErrorContains(t, err, "${UNSET} is not set")
	require.ErrorContains(t, err, "bogus")
	require.ErrorContains(t, err, `run "r" defined twice`, "the plan's problems come in one report")
}

// TestRefusesZeroCyclesAndUnknownStepIDs: cycles: 0 is refused, not taken
// for 1; resume --skip/--redo of a step the plan does not have is refused
// (issue 42, low).
func TestRefusesZeroCyclesAndUnknownStepIDs(t *testing.T) {
	_, err := Parse([]byte("name: x\ncycles: 0\nruns:\n  - {name: r, command: 'true'}\n"))
	require.ErrorContains(t, err, "line 2: cycles: 0")
	dir := t.TempDir()
	e, err := create([]byte("name: x\nruns:\n  - {name: r, command: 'true'}\n"), dir+"/out")
	require.NoError(t, err)
	e.Redo = map[string]bool{"r/r1/rnu": true}
	require.ErrorContains(t, e.Execute(context.Background()), `resume --redo r/r1/rnu: the plan has no step "r/r1/rnu"`)
	require.Empty(t, e.State().Runs, "nothing ran")
}

// TestRefusesShellOperatorsInWordLines: a loadgen, fio or prefix line is
// split into words, not run by a shell: an unquoted ;, &, |, < or > cut
// the line there silently; it is refused (issue 42, low).
func TestRefusesShellOperatorsInWordLines(t *testing.T) {
	for _, run := range []string{
		`{name: r, workload: oltp_read_write, duration: 10s, targets: [a], args: "--mysql-password=a&b --tables 2"}`,
		`{name: r, fio: "fio --name=x; rm -rf /"}`,
		`{name: r, fio: "fio --name=x > /dev/sda"}`,
	} {
		_, err := Parse([]byte("name: x\ntargets: [{name: a, dsn: 'root@tcp(127.0.0.1:3306)/x'}]\nruns:\n  - " + run + "\n"))
		require.ErrorContains(t, err, "unquoted", run)
	}
	_, err := Parse([]byte("name: x\nhosts: {db: {exec: 'ssh db | tee x'}}\nreset: [{command: 'true', on: db}]\nruns:\n  - {name: r, command: 'true'}\n"))
	require.ErrorContains(t, err, "unquoted")
	_, err = Parse([]byte("name: x\ntargets: [{name: a, dsn: 'root@tcp(127.0.0.1:3306)/x'}]\nruns:\n  - {name: r, workload: oltp_read_write, duration: 10s, targets: [a], args: \"--mysql-password='a&b' --tables 2\"}\n"))
	require.NoError(t, err, "a quoted & is a character")
}

// TestDefaultStepTimeout: a step without timeout: is bounded by the
// executor's default (DefaultStepTimeout, 12 h), not left to hang.
func TestDefaultStepTimeout(t *testing.T) {
	e, err := create([]byte("name: x\nreset: [{command: 'sleep 30'}]\nruns:\n  - {name: r, command: 'true'}\n"), t.TempDir()+"/out")
	require.NoError(t, err)
	e.StepTimeout, e.KillGrace = 500*time.Millisecond, 100*time.Millisecond
	require.ErrorContains(t, e.Execute(context.Background()), "timed out after 500ms")
}

// TestFailureSaysWhy: a failed step's error carries the last line it
// printed, not only its exit status (issue 42, low: a dead MariaDB shown
// as exit status 1).
func TestFailureSaysWhy(t *testing.T) {
	e, err := create([]byte("name: x\nreset: [{command: \"echo \\\"ERROR 2002 (HY000): Can't connect to server on '127.0.0.1'\\\" >&2; exit 1\"}]\nruns:\n  - {name: r, command: 'true'}\n"), t.TempDir()+"/out")
	require.NoError(t, err)
	require.ErrorContains(t, e.Execute(context.Background()), `exit status 1; its last output: "ERROR 2002 (HY000): Can't connect to server on '127.0.0.1'"`)
}

// TestFailureSaysSSHUnreachable: exit status 255 through ssh is said to be
// ssh's own (a database host it cannot reach), with ssh's message.
func TestFailureSaysSSHUnreachable(t *testing.T) {
	testenv.RequireBinary(t, "ssh")
	port := testenv.FreePort(t) // nothing listens there
	e, err := create(fmt.Appendf(nil, "name: x\nhosts: {db: {exec: 'ssh -o BatchMode=yes -o ConnectTimeout=5 -p %d walab@127.0.0.1'}}\nreset: [{command: 'true', on: db}]\nruns:\n  - {name: r, command: 'true'}\n", port), t.TempDir()+"/out")
	require.NoError(t, err)
	err = e.Execute(context.Background())
	require.ErrorContains(t, err, "exit status 255 (ssh exits 255 when it cannot reach or log in to the database host)")
	require.ErrorContains(t, err, "Connection refused")
}

// TestPreflight: a missing fio or loadgen binary and an argument exec
// would refuse are found when the experiment is created, before any step
// (the destructive reset) runs (issue 42, low).
func TestPreflight(t *testing.T) {
	_, err := create([]byte("name: x\nreset: [{command: 'true', destructive: true}]\nruns:\n  - {name: r, fio: '/nonexistent/fio --name=x'}\n"), t.TempDir()+"/out")
	require.ErrorContains(t, err, "/nonexistent/fio")
	_, err = create([]byte("name: x\nloadgen: /nonexistent/loadgen\ntargets: [{name: a, dsn: 'root@tcp(127.0.0.1:3306)/x'}]\nruns:\n  - {name: r, workload: oltp_read_write, duration: 10s, targets: [a]}\n"), t.TempDir()+"/out")
	require.ErrorContains(t, err, "/nonexistent/loadgen")
	long := strings.Repeat("x", 130<<10)
	_, err = create([]byte("name: x\nreset: [{command: 'echo "+long+"'}]\nruns:\n  - {name: r, command: 'true'}\n"), t.TempDir()+"/out")
	require.ErrorContains(t, err, "exec takes at most")
}

// TestExpandTemplatePlan: a plan whose ${NAME} stands for YAML of its own
// (seed 002's [${WALAB_FIO_NUMJOBS:-1, 4, 16, 32, 64}], a number inside
// {...}) is expanded as text, and a value with a line break is refused
// there rather than read as plan lines.
func TestExpandTemplatePlan(t *testing.T) {
	yml := []byte("name: x\nruns:\n  - {name: r, command: 'true', sweep: {threads: [${JOBS:-1, 4}]}}\n")
	env := map[string]string{}
	get := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	p, err := ParseEnv(yml, get)
	require.NoError(t, err)
	require.Equal(t, []int{1, 4}, p.Runs[0].Sweep.Threads)
	env["JOBS"] = "2, 8"
	p, err = ParseEnv(yml, get)
	require.NoError(t, err)
	require.Equal(t, []int{2, 8}, p.Runs[0].Sweep.Threads)
	env["JOBS"] = "2]}}\nreset: [{command: 'rm -rf /data', destructive: true}]\n#"
	_, err = ParseEnv(yml, get)
	require.ErrorContains(t, err, "${JOBS}: its value has a line break")
}

// TestRefusesGivenZeroCounts: a run's repeat: 0 became 1 and threads: 0
// loadgen's own default, silently, as cycles: 00 became one pass. A count
// written as 0 is refused at its line; left out, it keeps its default.
func TestRefusesGivenZeroCounts(t *testing.T) {
	for _, tc := range []struct{ plan, want string }{
		{"name: x\nruns:\n  - {name: r, command: 'true', repeat: 0}\n", "line 3: runs[0] (r): repeat: 0"},
		{"name: x\nruns:\n  - name: r\n    workload: tpcc\n    duration: 10s\n    targets: [a]\n    threads: 0\n", "line 7: runs[0] (r): threads: 0"},
		{"name: x\ncycles: 00\nruns:\n  - {name: r, command: 'true'}\n", "line 2: cycles: 0"},
	} {
		_, err := Parse([]byte(tc.plan))
		require.ErrorContains(t, err, tc.want, tc.plan)
	}
	_, err := Parse([]byte("name: x\nruns:\n  - {name: r, command: 'true'}\n"))
	require.NoError(t, err, "left out, a count keeps its default")
}
