//go:build linux

package qemu

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Controller is one emulated NVMe controller with its own raw disk image.
type Controller struct {
	Serial  string
	DiskMiB int
}

// VM describes one boot.
type VM struct {
	QEMU        string // qemu-system-x86_64
	Kernel      Kernel
	Initramfs   string
	Controllers []Controller
	MemoryMiB   int
	Dir         string // work directory: disks and serial logs go here
	Cmdline     string // extra kernel command line
}

// Run is what a boot produced.
type Run struct {
	Console  string        // first serial port: kernel and /init messages
	Output   []byte        // the tar the guest sent between OutBegin and OutEnd
	Duration time.Duration // wall time of the QEMU process
}

// Args is the QEMU command line: TCG (no KVM on CI; $WALAB_QEMU_ACCEL
// names another accelerator), no network, no
// display, serial ports into files, and -no-reboot so a guest panic ends
// the process instead of looping.
func (v VM) Args() ([]string, error) {
	mem := v.MemoryMiB
	if mem == 0 {
		mem = 512
	}
	accel := os.Getenv(AccelEnv)
	if accel == "" {
		accel = "tcg"
	}
	args := []string{
		"-accel", accel, "-m", strconv.Itoa(mem), "-smp", "1",
		"-display", "none", "-vga", "none", "-monitor", "none", "-nic", "none", "-no-reboot",
		"-kernel", v.Kernel.Image, "-initrd", v.Initramfs,
		"-append", strings.TrimSpace("console=ttyS0 panic=-1 rdinit=/init " + v.Cmdline),
		"-serial", "file:" + filepath.Join(v.Dir, "console.log"),
		"-serial", "file:" + filepath.Join(v.Dir, "out.b64"),
	}
	for i, c := range v.Controllers {
		if strings.ContainsAny(c.Serial, ",= ") {
			return nil, fmt.Errorf("controller serial %q: no commas, equals or spaces", c.Serial)
		}
		disk := filepath.Join(v.Dir, fmt.Sprintf("disk%d.raw", i))
		size := c.DiskMiB
		if size == 0 {
			size = 64
		}
		f, err := os.Create(disk)
		if err != nil {
			return nil, err
		}
		err = f.Truncate(int64(size) << 20) // sparse: costs no disk until written
		f.Close()
		if err != nil {
			return nil, err
		}
		args = append(args,
			"-drive", fmt.Sprintf("file=%s,if=none,id=d%d,format=raw", disk, i),
			"-device", fmt.Sprintf("nvme,serial=%s,drive=d%d", c.Serial, i))
	}
	return args, nil
}

// Boot runs QEMU until the guest powers off, or ctx ends (then the whole
// process group is killed). It returns what the guest sent even when the
// output is missing, so a failing test can show the console.
func (v VM) Boot(ctx context.Context) (Run, error) {
	args, err := v.Args()
	if err != nil {
		return Run{}, err
	}
	cmd := exec.CommandContext(ctx, v.QEMU, args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	// Own process group, so a timeout kills QEMU and anything it forked;
	// Pdeathsig so a test binary killed by `go test -timeout` takes QEMU along.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	runErr := cmd.Run()
	r := Run{Duration: time.Since(start)}
	con, _ := os.ReadFile(filepath.Join(v.Dir, "console.log"))
	r.Console = string(con)
	if runErr != nil {
		return r, fmt.Errorf("qemu: %w (ctx: %v): %s", runErr, ctx.Err(), stderr.String())
	}
	raw, err := os.ReadFile(filepath.Join(v.Dir, "out.b64"))
	if err != nil {
		return r, err
	}
	r.Output, err = DecodeOutput(raw)
	return r, err
}
