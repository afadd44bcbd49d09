package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/golden"
	"github.com/walab/walab/internal/testenv"
)

// sysbenchGolden is sysbench 1.0.20's oltp_read_write run with
// --report-interval, from "Threads started!" to its end, numbers masked
// (maskSysbench): written from the real sysbench by
// TestSysbenchFormatGoldenIsSysbenchs -update, never from loadgen.
var sysbenchGolden = filepath.Join("testdata", "sysbench-1.0.20-oltp_read_write.masked")

var (
	number = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)
	padded = regexp.MustCompile(` *N *`)
	// sysbench right-aligns the latency block's figures (%39.2f, %27.2f):
	// the masked line keeps its length.
	rightAligned = regexp.MustCompile(`^ +(min|avg|max|sum|[0-9]+th percentile): +[0-9.]+$`)
)

// maskSysbench masks every number of a run's output as N (with the spaces
// around it, which depend on the number's width), keeps the length of a
// right-aligned line, and folds repeated interval lines into one (a run
// prints as many as its seconds allow). What remains is sysbench's text.
func maskSysbench(out string) string {
	_, out, ok := strings.Cut(out, "Threads started!\n")
	if !ok {
		return "no 'Threads started!' line"
	}
	var b strings.Builder
	b.WriteString("Threads started!\n")
	prev := ""
	for _, line := range strings.SplitAfter(out, "\n") {
		m := padded.ReplaceAllString(number.ReplaceAllString(line, "N"), " N ")
		if rightAligned.MatchString(strings.TrimSuffix(line, "\n")) {
			m = fmt.Sprintf("%s|width %d\n", strings.TrimSuffix(m, "\n"), len(strings.TrimSuffix(line, "\n")))
		}
		if m != prev || !strings.HasPrefix(m, "[ N") {
			b.WriteString(m)
		}
		prev = m
	}
	return b.String()
}

func sysbenchArgs(db string) []string {
	host, port, _ := strings.Cut(testenv.MariaDBAddr(), ":")
	return []string{"--mysql-host=" + host, "--mysql-port=" + port, "--mysql-user=root", "--mysql-db=" + db,
		"--tables=2", "--table-size=1000", "--threads=2", "--time=3", "--report-interval=1"}
}

// TestSysbenchFormatGoldenIsSysbenchs: the golden is what the real
// sysbench 1.0.20 prints (Debian's), so that loadgen is held to sysbench
// and not to itself.
func TestSysbenchFormatGoldenIsSysbenchs(t *testing.T) {
	bin := testenv.RequireBinary(t, "sysbench")
	db := "walab_test_sysbench_format_real"
	testenv.MariaDB(t, db)
	var out, errb bytes.Buffer
	for _, phase := range []string{"prepare", "run"} {
		cmd := exec.Command(bin, append([]string{"oltp_read_write"}, append(sysbenchArgs(db), phase)...)...)
		out.Reset()
		cmd.Stdout, cmd.Stderr = &out, &errb
		require.NoError(t, cmd.Run(), "sysbench %s: %s", phase, errb.String())
	}
	require.Contains(t, out.String(), "sysbench 1.0.20")
	golden.Assert(t, sysbenchGolden, []byte(maskSysbench(out.String())))
}

// TestLoadgenPrintsSysbenchFormat: loadgen's run of the same line prints
// sysbench 1.0.20's interval lines and summary, field for field (numbers
// masked, right-aligned widths kept).
func TestLoadgenPrintsSysbenchFormat(t *testing.T) {
	db := "walab_test_sysbench_format_lg"
	testenv.MariaDB(t, db)
	var out, errb bytes.Buffer
	require.Equal(t, 0, Main(append([]string{"oltp_read_write", "prepare"}, sysbenchArgs(db)...), &out, &errb), errb.String())
	out.Reset()
	require.Equal(t, 0, Main(append([]string{"oltp_read_write", "run", "--web.disable"}, sysbenchArgs(db)...), &out, &errb), errb.String())
	want, err := os.ReadFile(sysbenchGolden)
	require.NoError(t, err)
	require.Equal(t, string(want), maskSysbench(out.String()), "loadgen's output:\n%s", out.String())
}
