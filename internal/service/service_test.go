package service

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMain serves HTTP at SERVICE_TEST_LISTEN when set: the test binary
// is then the service the tests start.
func TestMain(m *testing.M) {
	if a := os.Getenv("SERVICE_TEST_LISTEN"); a != "" {
		os.Stdout.WriteString("serving " + a + "\n")
		_ = http.ListenAndServe(a, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// TestRunWaitsReadyThenKillsTheGroup: a service on a free loopback port is
// ready once it answers 200; Kill ends it (and its group) and reaps it.
func TestRunWaitsReadyThenKillsTheGroup(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log", "svc.log")
	s := Service{Cmd: Cmd{Name: "svc", Bin: os.Args[0], Log: log}, Ready: "/", Args: func(addr string) []string {
		t.Setenv("SERVICE_TEST_LISTEN", addr) // the child inherits it
		return []string{"-test.run=^$"}
	}}
	p, err := s.Run(context.Background())
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(p.URL(), "http://127.0.0.1:"), p.URL())
	require.Nil(t, p.Exited())
	p.Kill()
	require.NotNil(t, p.Exited())
	require.Equal(t, syscall.Signal(syscall.SIGKILL), p.Exited().Sys().(syscall.WaitStatus).Signal())
	require.Contains(t, p.Tail(100), "serving "+p.Addr)
	_, err = Cmd{Name: "again", Bin: os.Args[0], Log: log}.Start()
	require.Error(t, err, "an existing log file is never written over")
}

// TestWaitReadyReportsAnExit: a process that exits before it is ready
// fails the wait at once with its output, not at the deadline.
func TestWaitReadyReportsAnExit(t *testing.T) {
	s := Service{Cmd: Cmd{Name: "false", Bin: "/bin/sh"}, Ready: "/",
		Args: func(string) []string { return []string{"-c", "echo no config; exit 3"} }, Within: time.Minute}
	start := time.Now()
	p, err := s.Run(context.Background())
	require.ErrorIs(t, err, ErrExited)
	require.Contains(t, err.Error(), "no config")
	require.Less(t, time.Since(start), 30*time.Second)
	require.Equal(t, 3, p.Exited().ExitCode())
}

// TestStopEndsTheGroup: Stop ends the process and what it started.
func TestStopEndsTheGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child")
	p, err := Cmd{Name: "sh", Bin: "/bin/sh", Args: []string{"-c", "sleep 300 & echo $! >" + pidFile + "; wait"}}.Start()
	require.NoError(t, err)
	var child int
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(pidFile)
		return err == nil && len(b) > 1 && parsePID(string(b), &child)
	}, 10*time.Second, 20*time.Millisecond)
	p.Stop(5 * time.Second)
	require.Eventually(t, func() bool {
		return errors.Is(syscall.Kill(child, 0), syscall.ESRCH) || zombie(child)
	}, 10*time.Second, 20*time.Millisecond, "the group's sleep outlived Stop")
}

func parsePID(s string, pid *int) bool {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	*pid = n
	return err == nil && n > 0
}

func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && strings.Contains(string(b), ") Z ")
}
