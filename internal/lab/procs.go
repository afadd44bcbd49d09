package lab

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/prometheus/procfs"
)

// proc is a service the lab started: its own process group, so that
// stopping it stops whatever it started too; Pdeathsig kills it should the
// lab itself die without stopping it (SIGTERM for the exporter, which then
// unmounts its filesystem; the next exporter's mount detaches what a
// SIGKILL leaves).
type proc struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

// start runs bin in dir with its output in dir/log/<name>.log.
func start(dir, name, bin string, args ...string) (*proc, error) {
	logPath := filepath.Join(dir, "log", name+".log")
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = f, f
	death := syscall.SIGKILL
	if name == "exporter" {
		death = syscall.SIGTERM // it unmounts the drive's filesystem: a killed lab leaves no dead mount
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: death}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s (%s): %w", name, bin, err)
	}
	p := &proc{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); f.Close(); close(p.done) }()
	return p, nil
}

// startService starts s in dir and waits until it answers at its ready
// URL. The process is returned whenever it was started, ready or not, so
// that the caller stops it.
// Before it starts, nothing else may listen on s.addr; once ready, the
// listening socket must be the process's own (ports.go says why).
func startService(ctx context.Context, dir string, s service, within time.Duration) (*proc, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return nil, err
	}
	if err := portFree(fs, s.name, s.addr); err != nil {
		return nil, err
	}
	p, err := start(dir, s.name, s.bin, s.args...)
	if err != nil {
		return nil, err
	}
	if err := p.waitReady(ctx, s.ready, within); err != nil {
		return p, err
	}
	return p, ownsListener(fs, p.cmd.Process.Pid, s.name, s.addr)
}

// exited reports whether the process has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM to the process group, then SIGKILL after grace, and
// waits for the process to be reaped.
func (p *proc) stop(grace time.Duration) {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
	// The leader is gone; anything left in its group goes too.
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
}

// kill is kill -9 of the process group (a crash), reaped.
func (p *proc) kill() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}

// waitReady polls url until it answers 200, the process exits, or within
// passes.
func (p *proc) waitReady(ctx context.Context, url string, within time.Duration) error {
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
			return fmt.Errorf("%s exited (%s); its log: %s", p.name, p.cmd.ProcessState, p.log)
		case <-ctx.Done():
			return fmt.Errorf("%s not ready at %s within %s (%v); its log: %s", p.name, url, within, last, p.log)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
