package exporterapp

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/collector"
)

const simStreamsOn = "wa:\n  persist: false\nsim:\n  name: nvmesim9\n  capacity: 256MiB\n  scale: 1\n  tick: 0s\n  placement:\n    streams: true\n"

// newReloadApp builds an app on the simulated drive with placement on,
// configured from a file the test then attacks, and a log to read.
func newReloadApp(t *testing.T) (*App, string, *bytes.Buffer) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "walab.yml")
	require.NoError(t, os.WriteFile(cfg, []byte(simStreamsOn), 0o644))
	a, err := New(Options{TelemetryPath: "/metrics", ConfigFile: cfg, Paths: collector.Paths{ProcFS: "/proc", SysFS: t.TempDir(), DevFS: t.TempDir()}}, quiet())
	require.NoError(t, err)
	t.Cleanup(func() { a.Close() })
	require.True(t, a.sims[0].Placement())
	return a, cfg, &bytes.Buffer{}
}

// reload runs Reload and fails the test if it blocks.
func reload(t *testing.T, a *App, log *bytes.Buffer) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- a.Reload(slog.New(slog.NewTextHandler(log, nil))) }()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("Reload blocked")
		return nil
	}
}

// TestReloadRefusesAndKeepsTheRunningConfig (issue 33 item 7): what can sit
// at the config path after a careless edit is refused whole, the running
// configuration is kept (the simulator's placement stays on), and a FIFO
// never blocks the reload.
func TestReloadRefusesAndKeepsTheRunningConfig(t *testing.T) {
	tests := []struct {
		name  string
		put   func(t *testing.T, path string)
		error string
	}{
		{"empty file", func(t *testing.T, p string) { require.NoError(t, os.WriteFile(p, nil, 0o644)) }, "empty"},
		{"only a comment", func(t *testing.T, p string) { require.NoError(t, os.WriteFile(p, []byte("# nothing\n"), 0o644)) }, "empty"},
		{"truncated mid-write: a section lost", func(t *testing.T, p string) {
			require.NoError(t, os.WriteFile(p, []byte(simStreamsOn[:len("wa:\n  persist: false\n")]), 0o644))
		}, `section "sim" is missing`},
		{"truncated mid-write: broken YAML", func(t *testing.T, p string) {
			require.NoError(t, os.WriteFile(p, []byte(simStreamsOn[:len(simStreamsOn)-12]+"\n  - ["), 0o644))
		}, "config"},
		{"FIFO", func(t *testing.T, p string) {
			require.NoError(t, os.Remove(p))
			require.NoError(t, syscall.Mkfifo(p, 0o644))
		}, "not a regular file"},
		{"directory", func(t *testing.T, p string) {
			require.NoError(t, os.Remove(p))
			require.NoError(t, os.Mkdir(p, 0o755))
		}, "not a regular file"},
		{"invalid sim value", func(t *testing.T, p string) {
			require.NoError(t, os.WriteFile(p, []byte(simStreamsOn+"  scale: -4\n"), 0o644))
		}, "sim"},
		{"invalid wa key", func(t *testing.T, p string) {
			require.NoError(t, os.WriteFile(p, []byte("wa:\n  persist: false\n  intreval: 5s\n"+simStreamsOn[len("wa:\n  persist: false\n"):]), 0o644))
		}, "intreval"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, cfg, log := newReloadApp(t)
			tc.put(t, cfg)
			err := reload(t, a, log)
			require.ErrorContains(t, err, tc.error)
			require.True(t, a.sims[0].Placement(), "placement kept on")
			require.Contains(t, log.String(), "reload refused; keeping the running configuration")

			// A good file afterwards still reloads (the refused one left nothing behind).
			require.NoError(t, os.RemoveAll(cfg))
			require.NoError(t, os.WriteFile(cfg, bytes.Replace([]byte(simStreamsOn), []byte("streams: true"), []byte("streams: false"), 1), 0o644))
			require.NoError(t, reload(t, a, log))
			require.False(t, a.sims[0].Placement())
		})
	}
}

// TestReloadSaysWhatCannotReload: a changed section that only a restart
// applies (an innodb target, the wa windows) is named in a log line.
func TestReloadSaysWhatCannotReload(t *testing.T) {
	a, cfg, log := newReloadApp(t)
	require.NoError(t, os.WriteFile(cfg, []byte(simStreamsOn+"innodb:\n  targets:\n    - name: db1\n      dsn: root@tcp(127.0.0.1:1)/\n"), 0o644))
	require.NoError(t, reload(t, a, log))
	require.Regexp(t, `section=innodb.*applies on restart|applies on restart.*section=innodb`, log.String())
}

// TestReloadAfterRestartOnlySection (issue 42 item 13): a reload that adds
// a section only a restart applies does not poison the later ones: going
// back to the original file (with placement switched off) is accepted and
// applied, and the warning names the section while the file differs from
// what runs.
func TestReloadAfterRestartOnlySection(t *testing.T) {
	a, cfg, log := newReloadApp(t)
	innodb := "innodb:\n  targets:\n    - name: db1\n      dsn: root@tcp(127.0.0.1:1)/\n"
	require.NoError(t, os.WriteFile(cfg, []byte(simStreamsOn+innodb), 0o644))
	require.NoError(t, reload(t, a, log))
	require.Contains(t, log.String(), "section=innodb")

	off := bytes.Replace([]byte(simStreamsOn), []byte("streams: true"), []byte("streams: false"), 1)
	require.NoError(t, os.WriteFile(cfg, off, 0o644))
	log.Reset()
	require.NoError(t, reload(t, a, log), "back to the original sections")
	require.False(t, a.sims[0].Placement(), "placement switched off")
	require.NotContains(t, log.String(), "section=innodb", "the running configuration has no innodb section")

	// Still guarded: a file that lost a section the exporter runs.
	require.NoError(t, os.WriteFile(cfg, []byte("wa:\n  persist: false\n"+innodb), 0o644))
	require.ErrorContains(t, reload(t, a, log), `section "sim" is missing`)
}
