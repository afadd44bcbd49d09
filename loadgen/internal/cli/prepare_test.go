package cli

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/walab/walab/internal/testenv"
)

// TestPrepareServesProgress: with --web.listen-address given, a TPC-C
// prepare serves its progress while it loads: rows loaded and expected,
// per target, rising to the expected count.
func TestPrepareServesProgress(t *testing.T) {
	testenv.MariaDB(t, "walab_test_tpcc_prepare_metrics")
	bin := buildLoadgen(t)
	listen := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	cmd := exec.Command(bin, "tpcc", "prepare", "--warehouses=2", "--threads=2", "--web.listen-address="+listen,
		"--target", "w=root@tcp("+testenv.MariaDBAddr()+")/walab_test_tpcc_prepare_metrics")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var seen []float64
	var expected float64
	re := regexp.MustCompile(`(?m)^walab_loadgen_prepare_(rows|expected_rows)\{target="w"\} (\S+)$`)
poll:
	for {
		select {
		case err := <-done:
			require.NoError(t, err, out.String())
			break poll
		case <-time.After(50 * time.Millisecond):
		}
		resp, err := http.Get("http://" + listen + "/metrics")
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			v, err := strconv.ParseFloat(m[2], 64)
			require.NoError(t, err)
			if m[1] == "rows" {
				seen = append(seen, v)
			} else {
				expected = v
			}
		}
	}
	require.NotEmpty(t, seen, "progress scraped while loading: %s", out.String())
	require.Greater(t, expected, 1e6, "2 warehouses are over a million rows")
	require.Less(t, seen[0], expected, "scraped before the end")
	for _, v := range seen {
		require.LessOrEqual(t, v, expected)
	}
}
