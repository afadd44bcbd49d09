package testenv

import (
	"context"
	"testing"
	"time"

	"github.com/walab/walab/internal/service"
)

// Buffer is a goroutine-safe output sink (service.Buffer).
type Buffer = service.Buffer

// Start runs a service for the test (a free loopback port unless s.Addr
// is set) and waits until it is ready; at the test's end it stops the
// process group, and on failure logs the tail of its output.
func Start(t testing.TB, s service.Service) *service.Process {
	t.Helper()
	p, err := s.Run(context.Background())
	if p != nil {
		stopAtEnd(t, p)
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// StartCmd starts a process for the test (not waiting for anything),
// stopped with its process group at the test's end.
func StartCmd(t testing.TB, c service.Cmd) *service.Process {
	t.Helper()
	p, err := c.Start()
	if err != nil {
		t.Fatal(err)
	}
	stopAtEnd(t, p)
	return p
}

func stopAtEnd(t testing.TB, p *service.Process) {
	t.Cleanup(func() {
		p.Stop(5 * time.Second)
		if t.Failed() {
			t.Logf("--- %s output (last 3 KB) ---\n%s", p.Name, p.Tail(3000))
		}
	})
}
