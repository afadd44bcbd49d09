// Package service starts the processes walab's lab and tests run and waits
// for them: each in its own process group (stopping it stops whatever it
// started), with a parent-death signal (a killed parent leaves none
// behind), its output in a log file or in memory, and a server ready once
// it answers HTTP 200 at its readiness path. internal/lab runs its services
// through it; tests start theirs through testenv.Start, which stops them at
// the test's end.
package service

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// Cmd is a process to start.
type Cmd struct {
	Name string // for logs and errors
	Bin  string
	Args []string
	Dir  string // its working directory ("": the caller's)
	// Log is the file its output goes to, created (with its directory)
	// and never an existing file; "" keeps the output in memory.
	Log string
	// Death is the signal it gets should its parent die first (0: SIGKILL).
	Death syscall.Signal
}

// Process is a started process.
type Process struct {
	Name string
	Addr string // the address a Service listens on ("" for a Cmd)
	Cmd  *exec.Cmd
	Log  string // its log file ("" when its output is in memory)
	mem  *Buffer
	done chan struct{} // closed once Wait returned: Cmd.ProcessState is set
}

// Start starts the process; a goroutine reaps it.
func (c Cmd) Start() (*Process, error) {
	p := &Process{Name: c.Name, Log: c.Log, done: make(chan struct{})}
	var f *os.File // the log file, closed once the process ends
	if c.Log != "" {
		if err := os.MkdirAll(filepath.Dir(c.Log), 0o755); err != nil {
			return nil, err
		}
		var err error
		if f, err = os.OpenFile(c.Log, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644); err != nil {
			return nil, err
		}
	}
	death := c.Death
	if death == 0 {
		death = syscall.SIGKILL
	}
	p.Cmd = exec.Command(c.Bin, c.Args...)
	p.Cmd.Dir = c.Dir
	if f != nil {
		p.Cmd.Stdout, p.Cmd.Stderr = f, f
	} else {
		p.mem = &Buffer{}
		p.Cmd.Stdout, p.Cmd.Stderr = p.mem, p.mem
	}
	p.Cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: death}
	if err := p.Cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s (%s): %w", c.Name, c.Bin, err)
	}
	go func() { _ = p.Cmd.Wait(); f.Close(); close(p.done) }()
	return p, nil
}

// Done is closed once the process has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited is the process's state once it has exited, nil while it runs.
func (p *Process) Exited() *os.ProcessState {
	select {
	case <-p.done:
		return p.Cmd.ProcessState
	default:
		return nil
	}
}

// Stop sends SIGTERM to the process group, SIGKILL after grace, waits for
// the process to be reaped and kills what is left of its group.
func (p *Process) Stop(grace time.Duration) {
	pid := p.Cmd.Process.Pid
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-p.done
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

// Kill is kill -9 of the process group (a crash), reaped.
func (p *Process) Kill() {
	_ = syscall.Kill(-p.Cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}

// Tail is the last n bytes of the process's output.
func (p *Process) Tail(n int) string {
	var b []byte
	if p.mem != nil {
		b = []byte(p.mem.String())
	} else {
		var err error
		if b, err = os.ReadFile(p.Log); err != nil {
			return err.Error()
		}
	}
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// where names the process's output for an error message.
func (p *Process) where() string {
	if p.Log != "" {
		return "its log: " + p.Log
	}
	return "its output:\n" + p.Tail(3000)
}

// ErrExited is the error WaitReady returns when the process ended first.
var ErrExited = errors.New("exited")

// WaitReady polls url until it answers 200, the process exits, or within
// passes.
func (p *Process) WaitReady(ctx context.Context, url string, within time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	var last error
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("HTTP %s", resp.Status)
		}
		last = err
		select {
		case <-p.done:
			return fmt.Errorf("%s %w (%s); %s", p.Name, ErrExited, p.Cmd.ProcessState, p.where())
		case <-ctx.Done():
			return fmt.Errorf("%s not ready at %s within %s (%v); %s", p.Name, url, within, last, p.where())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Service is a server: a command line for the address it listens on and
// the path that answers 200 once it is ready.
type Service struct {
	Cmd
	Args  func(addr string) []string // replaces Cmd.Args
	Addr  string                     // "": a free loopback port
	Ready string                     // e.g. "/-/ready"
	// Within bounds the wait for Ready (0: 60 s).
	Within time.Duration
}

// Run starts the service and waits until it is ready. The process is
// returned whenever it was started, ready or not, for the caller to stop.
func (s Service) Run(ctx context.Context) (*Process, error) {
	if s.Addr == "" {
		port, err := FreePort()
		if err != nil {
			return nil, err
		}
		s.Addr = "127.0.0.1:" + strconv.Itoa(port)
	}
	c := s.Cmd
	c.Args = s.Args(s.Addr)
	p, err := c.Start()
	if err != nil {
		return nil, err
	}
	p.Addr = s.Addr
	within := s.Within
	if within == 0 {
		within = 60 * time.Second
	}
	return p, p.WaitReady(ctx, p.URL()+s.Ready, within)
}

// URL is the service's base URL, http://Addr.
func (p *Process) URL() string { return "http://" + p.Addr }

// FreePort is a loopback TCP port that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
