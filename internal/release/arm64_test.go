package release

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/collector"
	"github.com/walab/walab/internal/testenv"
)

// TestArm64ExporterServesReplay runs the release's arm64 exporter under
// qemu-user (qemu-aarch64-static, named explicitly: no binfmt_misc
// registration needed) on the committed replay fleet, scrapes it from
// this machine, and finds every NVMe series as the native build serves
// them: the byte layouts decode the same on arm64 (seed 003's Kunpeng).
func TestArm64ExporterServesReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the exporter twice and runs one under QEMU")
	}
	qemu := testenv.RequireBinary(t, "qemu-aarch64-static")
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	s := Source{Root: root, Version: "0.0.0", Revision: "test", Date: time.Unix(0, 0).UTC()}
	bins := map[string]string{}
	for _, arch := range []string{"arm64", runtime.GOARCH} {
		dir := filepath.Join(t.TempDir(), arch)
		require.NoError(t, s.Build(context.Background(), arch, dir, Programs[:1]))
		bins[arch] = filepath.Join(dir, "exporter")
	}
	ver, err := exec.Command(qemu, bins["arm64"], "--version").CombinedOutput()
	require.NoError(t, err, "%s", ver)
	require.Contains(t, string(ver), "platform:         linux/arm64")

	replay := filepath.Join(root, "exporter", "testdata", "replay")
	serve := func(argv ...string) string {
		port := testenv.FreePort(t)
		args := []string{"--nvme.replay=" + replay, fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port), "--no-collector.wa"}
		for _, n := range collector.Names() {
			if n != "nvme" && n != "wa" {
				args = append(args, "--no-collector."+n)
			}
		}
		cmd := exec.Command(argv[0], append(argv[1:], args...)...)
		logs := &testenv.Buffer{}
		cmd.Stdout, cmd.Stderr = logs, logs
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		require.NoError(t, cmd.Start())
		defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
		return nvmeSeries(scrape(t, fmt.Sprintf("http://127.0.0.1:%d/metrics", port), logs))
	}
	native := serve(bins[runtime.GOARCH])
	require.Contains(t, native, `walab_nvme_up{device="nvme4"} 1`)
	require.Contains(t, native, `walab_nvme_media_written_bytes_total{device="nvme2"`)
	require.Equal(t, native, serve(qemu, bins["arm64"]))
}

// nvmeSeries keeps the walab_nvme_ samples of a scrape, less the ones that
// measure time.
func nvmeSeries(body string) string {
	var b strings.Builder
	timing := regexp.MustCompile(`_seconds(_bucket|_sum|_count)?\{|timestamp`)
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "walab_nvme_") && !timing.MatchString(l) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
