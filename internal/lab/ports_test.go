package lab

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/procfs"
	"github.com/stretchr/testify/require"
)

// serveEnv makes the test binary a service: it answers 200 on every path
// at the address the variable names (see TestMain).
const serveEnv = "WALAB_LAB_TEST_SERVE"

func TestMain(m *testing.M) {
	if addr := os.Getenv(serveEnv); addr != "" {
		err := http.ListenAndServe(addr, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// testService is the test binary serving on addr, as a lab service.
func testService(t *testing.T, addr string) service {
	t.Setenv(serveEnv, addr) // inherited by the child
	return service{name: "svc", addr: addr, bin: os.Args[0], ready: "http://" + addr + "/metrics", args: []string{"-test.run=^$"}}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().String()
}

// TestStartServiceForeignListener: another process already answers on the
// service's port (a second lab, a user's Prometheus): the lab refuses the
// port instead of taking the foreign service's answers for its own.
func TestStartServiceForeignListener(t *testing.T) {
	foreign := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer foreign.Close()
	addr := foreign.Listener.Addr().String()
	s := testService(t, addr)
	p, err := startService(context.Background(), t.TempDir(), s, 20*time.Second)
	if p != nil {
		defer p.stop(time.Second)
	}
	require.Error(t, err, "a port served by another process is not the lab's service")
	require.Contains(t, err.Error(), "another process")
	require.Contains(t, err.Error(), addr)
}

// TestStartServiceWildcardListener: a foreign service on 0.0.0.0 (or ::)
// and the same port also answers the lab's loopback address.
func TestStartServiceWildcardListener(t *testing.T) {
	l, err := net.Listen("tcp", ":0")
	require.NoError(t, err)
	defer l.Close()
	go func() { _ = http.Serve(l, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})) }()
	addr := "127.0.0.1:" + strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	p, err := startService(context.Background(), t.TempDir(), testService(t, addr), 20*time.Second)
	if p != nil {
		defer p.stop(time.Second)
	}
	require.Error(t, err)
	require.Contains(t, err.Error(), "another process")
}

// TestStartServiceOwnListener: the service the lab started bound the
// port itself: accepted.
func TestStartServiceOwnListener(t *testing.T) {
	addr := freeAddr(t)
	dir := t.TempDir()
	p, err := startService(context.Background(), dir, testService(t, addr), 20*time.Second)
	require.NotNil(t, p)
	defer p.stop(time.Second)
	require.NoError(t, err)
	log, err := os.ReadFile(filepath.Join(dir, "log", "svc.log"))
	require.NoError(t, err)
	require.Empty(t, string(log))
}

// TestOwnsListener: the check after readiness (a foreign service that
// bound the port between the lab's look and its service's start): the
// socket's owner is compared, not who answers.
func TestOwnsListener(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	fs, err := procfs.NewDefaultFS()
	require.NoError(t, err)
	require.NoError(t, ownsListener(fs, os.Getpid(), "svc", addr), "this process holds the listener")

	other := exec.Command("sleep", "30")
	require.NoError(t, other.Start())
	defer func() { _ = other.Process.Kill(); _ = other.Wait() }()
	err = ownsListener(fs, other.Process.Pid, "svc", addr)
	require.Error(t, err)
	require.Contains(t, err.Error(), "another process listens on "+addr)

	err = ownsListener(fs, os.Getpid(), "svc", freeAddr(t))
	require.ErrorContains(t, err, "nothing listens there")
}
