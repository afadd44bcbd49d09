package lab

import (
	"context"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/prometheus/procfs"

	svc "github.com/walab/walab/internal/service"
)

// proc is a service the lab started (internal/service: its own process
// group, so that stopping it stops whatever it started too; a parent-death
// signal should the lab itself die without stopping it), seen by its name,
// command and log file.
type proc struct {
	*svc.Process
	name string
	cmd  *exec.Cmd
	log  string
	done <-chan struct{}
}

// start runs bin in dir with its output in dir/log/<name>.log. The
// exporter's parent-death signal is SIGTERM: it then unmounts its
// filesystem (the next exporter's mount detaches what a SIGKILL leaves).
func start(dir, name, bin string, args ...string) (*proc, error) {
	death := syscall.SIGKILL
	if name == "exporter" {
		death = syscall.SIGTERM
	}
	p, err := svc.Cmd{Name: name, Bin: bin, Args: args, Dir: dir,
		Log: filepath.Join(dir, "log", name+".log"), Death: death}.Start()
	if err != nil {
		return nil, err
	}
	return &proc{Process: p, name: name, cmd: p.Cmd, log: p.Log, done: p.Done()}, nil
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
	if err := p.WaitReady(ctx, s.ready, within); err != nil {
		return p, err
	}
	return p, ownsListener(fs, p.cmd.Process.Pid, s.name, s.addr)
}

// exited reports whether the process has ended.
func (p *proc) exited() bool { return p.Exited() != nil }

// stop sends SIGTERM to the process group, then SIGKILL after grace, and
// waits for the process to be reaped.
func (p *proc) stop(grace time.Duration) { p.Stop(grace) }

// kill is kill -9 of the process group (a crash), reaped.
func (p *proc) kill() { p.Kill() }
