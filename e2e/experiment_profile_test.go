package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/hotspots"
	"github.com/walab/walab/internal/testenv"
)

// TestExperimentProfile: seed 003's before/after as a plan. The exporter
// runs with --collector.profile; two runs keep a private mariadbd busy in
// one query, with innodb_spin_wait_delay 4 and then 48 set between them;
// walab experiment takes a profile per run from the exporter and the
// report's CPU profile table shows both knob values beside the query's
// functions, named from mariadbd's .dynsym.
func TestExperimentProfile(t *testing.T) {
	dir, bins := preamble(t, []string{"mariadb"}, "exporter", "walab")
	exporter, walab := bins["exporter"], bins["walab"]
	in := testenv.StartMariaDB(t)

	writeFile(t, dir, "exporter.yml", "wa:\n  persist: false\nsim:\n  capacity: 256MiB\n  tick: 0s\n")
	a := addr(testenv.FreePort(t))
	p := start(t, dir, "exporter", exporter, "--web.listen-address="+a, "--config.file=exporter.yml",
		"--path.sysfs="+dir, "--collector.profile", "--collector.profile.process=mariadbd")
	waitHTTP(t, p, "http://"+a+"/metrics", 60*time.Second)
	if _, _, err := hotspots.Fetch(context.Background(), &http.Client{Timeout: time.Minute}, "http://"+a, 1); err != nil && strings.Contains(err.Error(), "503") {
		testenv.Missing(t, "BPF CPU sampling on this machine: %v", err)
	}

	client := fmt.Sprintf("mariadb -h127.0.0.1 -P%d -uroot", in.Port)
	run := func(name, delay string) string {
		return fmt.Sprintf(`  - name: %[1]s
    between:
      - command: %[2]s -e 'SET GLOBAL innodb_spin_wait_delay=%[3]s'
    command: %[2]s -e "SET STATEMENT max_statement_time=5 FOR SELECT BENCHMARK(100000000000, CONCAT('wa', 'lab'))" || true
`, name, client, delay)
	}
	plan := fmt.Sprintf("name: spin\nexporter: http://%s\ntargets:\n  - {name: db, dsn: \"root@tcp(127.0.0.1:%d)/\"}\nprofile: 3s\nruns:\n%s%s",
		a, in.Port, run("delay4", "4"), run("delay48", "48"))
	writeFile(t, dir, "plan.yml", plan)
	out := filepath.Join(dir, "experiment")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	b, err := exec.CommandContext(ctx, walab, "experiment", "run", filepath.Join(dir, "plan.yml"), "--out", out).CombinedOutput()
	require.NoError(t, err, "%s", b)

	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	require.NoError(t, err)
	r := string(report)
	require.Contains(t, r, "## CPU profile")
	require.Contains(t, r, "| innodb_spin_wait_delay | 4 | 48 |")
	section := r[strings.Index(r, "## CPU profile"):]
	section = section[:strings.Index(section[3:], "\n## ")+3]
	t.Logf("%s", section)
	require.Regexp(t, `\| Item_func_concat::(val_str|append_value) \(mariadbd\) \| \d+\.\d %`, section)
	for _, id := range []string{"spin-delay4-r1", "spin-delay48-r1"} {
		f, err := os.Open(filepath.Join(out, "runs", id, "profile.pb.gz"))
		require.NoError(t, err, id)
		prof, err := hotspots.Read(f)
		f.Close()
		require.NoError(t, err)
		require.Positive(t, prof.Total, id)
	}
}
