package deploy

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/compose-spec/compose-go/v2/types"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/testenv"
)

// stateDir is where the compose exporter keeps its state files.
const stateDir = "/var/lib/walab"

// TestComposeExporterKeepsState: the compose exporter's WA history, run
// mark and simulated drive counters live on a named volume, mounted
// read-write, so a container restart keeps them.
func TestComposeExporterKeepsState(t *testing.T) {
	f, err := config.Load("exporter/exporter.yml")
	require.NoError(t, err)
	for _, section := range []string{"wa", "sim"} {
		var raw map[string]any
		require.NoError(t, f.Decode(section, &raw))
		file, _ := raw["state_file"].(string)
		require.Equal(t, stateDir, path.Dir(file), "%s.state_file", section)
	}
	exp := loadCompose(t).Services["exporter"]
	var found bool
	for _, v := range exp.Volumes {
		if v.Target == stateDir {
			found = true
			require.Equal(t, types.VolumeTypeVolume, v.Type, "a named volume outlives the container")
			require.False(t, v.ReadOnly)
		}
	}
	require.True(t, found, "no volume at %s", stateDir)
}

// TestComposeExporterRestart runs the exporter with the compose
// configuration (its state directory moved to a temporary one), kills it
// with -9 after its first samples and starts it again: the run mark and
// the samples are still there, and the drive's counters did not go back.
func TestComposeExporterRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the exporter: skipped with -short")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "exporter")
	out, err := exec.Command("go", "build", "-o", bin, "../exporter").CombinedOutput()
	require.NoError(t, err, "go build ./exporter: %s", out)
	cfg, err := os.ReadFile("exporter/exporter.yml")
	require.NoError(t, err)
	state := filepath.Join(dir, "state")
	require.NoError(t, os.Mkdir(state, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "exporter.yml"), []byte(strings.ReplaceAll(string(cfg), stateDir+"/", state+"/")), 0o644))
	addr := "127.0.0.1:" + strconv.Itoa(testenv.FreePort(t))
	base := "http://" + addr
	start := func() *exec.Cmd {
		cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "exporter.yml"), "--web.listen-address="+addr,
			"--path.sysfs="+dir, "--path.devfs="+dir)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		require.NoError(t, cmd.Start())
		return cmd
	}
	anyValue := func(float64) bool { return true }
	cmd := start()
	runStart := testenv.WaitMetric(t, base, "walab_nvme_run_start_timestamp_seconds", time.Minute, anyValue)
	samples := testenv.WaitMetric(t, base, "walab_nvme_wa_samples", time.Minute, anyValue)
	testenv.WaitMetric(t, base, "walab_nvme_wa_state_last_save_timestamp_seconds", time.Minute, anyValue)
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()

	cmd = start()
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	require.Equal(t, runStart, testenv.WaitMetric(t, base, "walab_nvme_run_start_timestamp_seconds", time.Minute, anyValue))
	require.GreaterOrEqual(t, testenv.WaitMetric(t, base, "walab_nvme_wa_samples", time.Minute, anyValue), samples)
	require.Equal(t, 0.0, testenv.WaitMetric(t, base, "walab_nvme_wa_resets_total", time.Minute, anyValue))
}
