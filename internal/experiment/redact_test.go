package experiment

import (
	"github.com/walab/walab/internal/experiment/plan"

	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const testSecret = "s3cr3t-Pw-4711"

// secretPlan passes a password from the environment in a target's DSN, a
// loadgen step's --mysql-password, and a command's -p (recognisable only
// by the variable's name); the last step fails when fail is set, so its
// error (with the command line) reaches the state file.
const secretPlan = `name: sec
loadgen: /bin/true
targets:
  - {name: db, dsn: "root:${WALAB_TEST_DB_PW}@tcp(127.0.0.1:1)/x?timeout=1s"}
prepare:
  - {name: check, loadgen: "tpcc check --mysql-password ${WALAB_TEST_DB_PW}", targets: [db]}
  - {name: eq, loadgen: "tpcc check --mysql-password=${WALAB_TEST_DB_PW}"}
  - {name: client, command: ': -uroot -p${WALAB_TEST_DB_PW}; [ -z "$FAIL" ]'}
runs:
  - {name: r, command: 'true --dsn "root:${WALAB_TEST_DB_PW}@tcp(h:1)/x"'}
`

// requireNoSecret greps every file under out for the secret and checks
// that none is readable by others.
func requireNoSecret(t *testing.T, out string) {
	t.Helper()
	n := 0
	require.NoError(t, filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if d.IsDir() {
			return nil
		}
		n++
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NotContains(t, string(b), testSecret, "%s holds the password", path)
		fi, err := d.Info()
		require.NoError(t, err)
		require.Zero(t, fi.Mode().Perm()&0o007, "%s is readable by others (%s)", path, fi.Mode())
		return nil
	}))
	require.Greater(t, n, 4, "files checked")
}

// TestNoSecretInOutput: a password given through the environment reaches
// no file of the experiment (plan copy, state, logs, fingerprints,
// report), also when a step fails, and resume still runs with it.
func TestNoSecretInOutput(t *testing.T) {
	t.Setenv("WALAB_TEST_DB_PW", testSecret)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	e, err := create([]byte(secretPlan), out)
	require.NoError(t, err)
	require.NoError(t, e.Execute(context.Background()))
	report, err := os.ReadFile(filepath.Join(out, ReportFile))
	require.NoError(t, err)
	require.Contains(t, string(report), "${WALAB_TEST_DB_PW}", "the report shows the plan as written")
	logs, err := filepath.Glob(filepath.Join(out, "logs", "*check.log"))
	require.NoError(t, err)
	require.Len(t, logs, 1)
	b, err := os.ReadFile(logs[0])
	require.NoError(t, err)
	require.Contains(t, string(b), "--mysql-password '***' --target 'db=root:***@tcp(127.0.0.1:1)/x")
	requireNoSecret(t, out)

	t.Setenv("FAIL", "1")
	out2 := filepath.Join(dir, "out2")
	e, err = create([]byte(secretPlan), out2)
	require.NoError(t, err)
	err = e.Execute(context.Background())
	require.ErrorContains(t, err, "-p***")
	require.NotContains(t, err.Error(), testSecret)
	require.NoError(t, e.WriteReport())
	requireNoSecret(t, out2)

	// Resume expands the plan again from the environment.
	t.Setenv("FAIL", "")
	e, err = Open(out2)
	require.NoError(t, err)
	require.Equal(t, "root:"+testSecret+"@tcp(127.0.0.1:1)/x?timeout=1s", e.Plan.Targets[0].DSN)
	require.NoError(t, e.Execute(context.Background()))
	requireNoSecret(t, out2)
	t.Setenv("WALAB_TEST_DB_PW", "another")
	_, err = Open(out2)
	require.NoError(t, err, "a changed password is not a changed experiment")
	os.Unsetenv("WALAB_TEST_DB_PW")
	_, err = Open(out2)
	require.ErrorContains(t, err, "${WALAB_TEST_DB_PW} is not set")
}

func TestRedact(t *testing.T) {
	r := redactor{secrets: []string{"hunter22"}}
	for in, want := range map[string]string{
		"--target db=root:pw@tcp(h:3306)/x":          "--target db=root:***@tcp(h:3306)/x",
		"dsn: 'u:p@ss@unix(/run/s)/d'":               "dsn: 'u:***@unix(/run/s)/d'",
		"loadgen --mysql-password 'a b' --threads 4": "loadgen --mysql-password *** --threads 4",
		"x --mysql-password=abc y":                   "x --mysql-password=*** y",
		"mariadb --password=xyz -e 'select 1'":       "mariadb --password=*** -e 'select 1'",
		"mysql -uroot -phunter22 < dump.sql":         "mysql -uroot -p*** < dump.sql",
		"at 15:04:05, 3 of 4 (root@localhost)":       "at 15:04:05, 3 of 4 (root@localhost)",
		"http://prom:9090/api/v1/query?x=1":          "http://prom:9090/api/v1/query?x=1",
	} {
		require.Equal(t, want, r.text(in), in)
	}
	require.Equal(t, []string{"loadgen", "--mysql-password", "***", "--target", "a=u:***@tcp(h)/d"},
		r.argv([]string{"loadgen", "--mysql-password", "p w", "--target", "a=u:pw@tcp(h)/d"}))
	require.Equal(t, strings.Repeat("x", 3), redactor{secrets: []string{"x"}}.text("xxx"), "a secret too short to hide is not replaced")
}

// TestDryRunHidesSecrets: the dry-run of a plan file shows the commands
// with the environment's values, but not the secret ones.
func TestDryRunHidesSecrets(t *testing.T) {
	t.Setenv("WALAB_TEST_DB_PW", testSecret)
	var b strings.Builder
	require.NoError(t, DryRunFile(plan.Source{Raw: []byte(secretPlan), Getenv: os.LookupEnv}, &b, false))
	require.NotContains(t, b.String(), testSecret)
	require.Contains(t, b.String(), ": -uroot -p***;")
	require.Contains(t, b.String(), "--target 'db=root:***@tcp(127.0.0.1:1)/x?timeout=1s'")
}

// TestSecretInDefault: a secret named inside another variable's default
// is hidden too.
func TestSecretInDefault(t *testing.T) {
	get := func(k string) (string, bool) {
		v, ok := map[string]string{"DB_PASSWORD": "hunter2"}[k]
		return v, ok
	}
	require.Equal(t, []string{"hunter2"}, secretsOf(plan.Source{Raw: []byte("dsn: ${DSN:-root:${DB_PASSWORD}@tcp(db:3306)/x}\n"), Getenv: get}))
}
