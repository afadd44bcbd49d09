package release

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// TestUnitProfileNamesKernelFrames runs the exporter's CPU profile with
// the unit's credentials (a non-root user whose only capabilities are the
// unit's AmbientCapabilities, through setpriv) against a process that
// spends its CPU in the kernel (dd of /dev/zero to /dev/null, one byte at
// a time, as root like mysqld is another user): with the unit's CAP_SYSLOG
// the kernel frames are named; with it withheld they are [unknown] and
// walab_profile_frames_unnamed_info says needs_cap_syslog. Either way
// mysqld's user frames need CAP_SYS_PTRACE, which the unit does not
// grant, and the same metric says so. Before, the unit had CAP_SYS_ADMIN
// alone and every kernel frame was [unknown] with no word why.
func TestUnitProfileNamesKernelFrames(t *testing.T) {
	if os.Geteuid() != 0 {
		testenv.Missing(t, "root, to run the exporter as another user")
	}
	setpriv := testenv.RequireBinary(t, "setpriv")
	kptr, paranoid := sysctl(t, "kptr_restrict"), sysctl(t, "perf_event_paranoid")
	if kptr == "2" {
		testenv.Missing(t, "kernel.kptr_restrict below 2 (at 2 no capability shows /proc/kallsyms)")
	}
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o755))
	require.NoError(t, os.Chmod(filepath.Dir(dir), 0o755))
	exporter := filepath.Join(dir, "walab-exporter")
	out, err := exec.Command("go", "build", "-o", exporter, "../../exporter").CombinedOutput()
	require.NoError(t, err, "%s", out)
	cfg := filepath.Join(dir, "exporter.yml")
	require.NoError(t, os.WriteFile(cfg, []byte("wa:\n  persist: false\nsim:\n  name: nvmesim8\n  capacity: 256MiB\n  scale: 1\n  tick: 0s\n"), 0o644))
	comm := kernelBusy(t, dir)

	var caps []string
	for _, c := range strings.Fields(unitOptions(t)["Service.AmbientCapabilities"][0]) {
		caps = append(caps, strings.ToLower(strings.TrimPrefix(c, "CAP_")))
	}
	require.Contains(t, caps, "syslog", "the unit grants CAP_SYSLOG")
	var withheld []string
	for _, c := range caps {
		if c != "syslog" {
			withheld = append(withheld, c)
		}
	}
	// Without CAP_SYSLOG the kernel still shows the addresses at
	// kptr_restrict 0 with perf_event_paranoid 1 or below.
	openKallsyms := kptr == "0" && (paranoid == "-1" || paranoid == "0" || paranoid == "1")
	for _, c := range []struct {
		name  string
		caps  []string
		named bool
	}{{"unit", caps, true}, {"without CAP_SYSLOG", withheld, openKallsyms}} {
		t.Run(c.name, func(t *testing.T) {
			metrics := profileAs(t, setpriv, exporter, cfg, comm, c.caps)
			kernel := regexp.MustCompile(`(?m)^walab_profile_function_samples_total\{function="([^"]+)",module="kernel"\} [1-9]`)
			var named []string
			for _, m := range kernel.FindAllStringSubmatch(metrics, -1) {
				if m[1] != "[unknown]" {
					named = append(named, m[1])
				}
			}
			profile := profileLines(metrics)
			t.Logf("kernel functions named: %v\n%s", named, profile)
			// dd's own frames: named from its maps, or unnamed with the reason.
			user := regexp.MustCompile(`(?m)^walab_profile_function_samples_total\{function="[^["][^"]*",module="` + comm + `"\}`)
			if !user.MatchString(metrics) {
				require.Contains(t, profile, `walab_profile_frames_unnamed_info{frames="user",reason="needs_cap_sys_ptrace"} 1`)
			}
			if c.named {
				require.NotEmpty(t, named, "%s", profile)
				require.NotContains(t, profile, `frames="kernel"`)
				return
			}
			require.Empty(t, named)
			require.Contains(t, profile, `walab_profile_frames_unnamed_info{frames="kernel",reason="needs_cap_syslog"} 1`)
		})
	}
}

func sysctl(t *testing.T, name string) string {
	b, err := os.ReadFile("/proc/sys/kernel/" + name)
	require.NoError(t, err)
	return strings.TrimSpace(string(b))
}

// kernelBusy starts, as root, dd copying /dev/zero to /dev/null a byte at
// a time under a comm name of this test's own: its CPU is in the kernel.
func kernelBusy(t *testing.T, dir string) string {
	dd := testenv.RequireBinary(t, "dd")
	comm := fmt.Sprintf("wlkdd%d", os.Getpid()%100000)
	b, err := os.ReadFile(dd)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, comm), b, 0o755))
	cmd := exec.Command(filepath.Join(dir, comm), "if=/dev/zero", "of=/dev/null", "bs=1")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return comm
}

// profileAs runs the exporter as uid 65534 with exactly caps and the
// profile collector on comm, and returns /metrics once its samples name
// a kernel frame or say why they cannot.
func profileAs(t *testing.T, setpriv, exporter, cfg, comm string, caps []string) string {
	set := "-all"
	for _, c := range caps {
		set += ",+" + c
	}
	port := testenv.FreePort(t)
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
		"--inh-caps="+set, "--ambient-caps="+set, "--bounding-set="+set, "--no-new-privs", "--",
		exporter, "--config.file="+cfg, fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port),
		"--collector.profile", "--collector.profile.process="+comm)
	cmd.Dir = "/"
	logs := &testenv.Buffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url := fmt.Sprintf("http://127.0.0.1:%d/metrics", port)
	kernelSeries := regexp.MustCompile(`(?m)^walab_profile_function_samples_total\{function="[^"]+",module="kernel"\} [1-9]`)
	var metrics string
	require.Eventually(t, func() bool {
		metrics = scrapeOnce(url)
		return strings.Contains(metrics, "walab_profile_up 1") && kernelSeries.MatchString(metrics)
	}, 90*time.Second, 500*time.Millisecond, "no kernel sample of %s\n%s\n%s", comm, profileLines(metrics), logs)
	return metrics
}

// profileLines are the walab_profile_ samples of a scrape.
func profileLines(metrics string) string {
	var out []string
	for _, l := range strings.Split(metrics, "\n") {
		if strings.HasPrefix(l, "walab_profile_") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// scrapeOnce is url's body, or "" when it does not answer 200.
func scrapeOnce(url string) string {
	resp, err := http.Get(url)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return ""
	}
	return string(b)
}
