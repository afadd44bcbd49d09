//go:build linux

package qemu

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/walab/walab/internal/testenv"
)

// Controller is one emulated NVMe controller with its own raw disk images.
type Controller struct {
	Serial  string
	DiskMiB int  // size of its one namespace when Namespaces is empty (default 64)
	OCP     bool // ocp=on: the OCP SMART / Health Information Extended log 0xC0 (QEMU >= 10)
	// FDP puts the controller in an nvme-subsys with Flexible Data
	// Placement on (QEMU >= 8); Namespaces then says which reclaim unit
	// handles each namespace may name.
	FDP        *FDP
	Namespaces []Namespace // explicit nvme-ns devices, nsid 1, 2, ...; empty: one namespace of DiskMiB
}

// FDP is an nvme-subsys's FDP configuration, as QEMU's properties name it.
type FDP struct {
	RUSize  int64  // fdp.runs: reclaim unit nominal size, bytes
	Groups  uint32 // fdp.nrg: reclaim groups
	Handles uint16 // fdp.nruh: reclaim unit handles
}

// Namespace is one nvme-ns device with its own raw image.
type Namespace struct {
	DiskMiB int    // default 64
	Handles string // fdp.ruhs: reclaim unit handle ids the namespace's placement handles map to, "1;3;5"; "" lets the controller assign one
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
	SMP         int    // vCPUs (default 1)
	// Net, when set, gives the guest one virtio NIC on QEMU's user-mode
	// network with restrict=on (the guest reaches nothing outside) and
	// its ports forwarded from the host's loopback only; nil: no NIC.
	Net *UserNet
	// Shares are host directories the guest mounts over virtio-9p.
	Shares []Share
	// Disks are raw images the guest sees as virtio block devices
	// (/dev/vda, /dev/vdb, ... in this order), read-only.
	Disks []string
}

// UserNet is the guest's user-mode network: host 127.0.0.1:Host → guest :Guest.
type UserNet struct {
	Forwards []Forward
}

// Forward is one TCP port forwarded from the host's loopback to the guest.
type Forward struct{ Host, Guest int }

// Share is a host directory exported to the guest over virtio-9p with
// mount tag Tag; ReadOnly makes QEMU refuse every write.
type Share struct {
	Tag, Path string
	ReadOnly  bool
}

// Run is what a boot produced.
type Run struct {
	Console  string        // first serial port: kernel and /init messages
	Output   []byte        // the tar the guest sent between OutBegin and OutEnd
	Duration time.Duration // wall time of the QEMU process
}

// AccelEnv names the accelerators to try, in order, colon-separated
// ("kvm:tcg"); the default is tcg alone. On the build machines /dev/kvm
// opens but cannot run a guest: QEMU 7.2 and 10 both stop in the kernel's
// decompressor with "KVM internal error. Suberror: 1" (emulation failure),
// after KVM initialised, so QEMU's own fallback to the next accelerator
// never happens and the boot hangs until its timeout.
const AccelEnv = "WALAB_QEMU_ACCEL"

// Args is the QEMU command line: TCG unless $WALAB_QEMU_ACCEL says
// otherwise, no network, no display, serial ports into files, and
// -no-reboot so a guest panic ends the process instead of looping.
func (v VM) Args() ([]string, error) {
	mem := v.MemoryMiB
	if mem == 0 {
		mem = 512
	}
	accel := os.Getenv(AccelEnv)
	if accel == "" {
		accel = "tcg"
	}
	var args []string
	for _, a := range strings.Split(accel, ":") {
		args = append(args, "-accel", a)
	}
	smp := max(v.SMP, 1)
	args = append(args,
		"-m", strconv.Itoa(mem), "-smp", strconv.Itoa(smp),
		"-display", "none", "-vga", "none", "-monitor", "none", "-no-reboot",
		"-kernel", v.Kernel.Image, "-initrd", v.Initramfs,
		"-append", strings.TrimSpace("console=ttyS0 panic=-1 rdinit=/init "+v.Cmdline),
		"-serial", "file:"+filepath.Join(v.Dir, "console.log"),
		"-serial", "file:"+filepath.Join(v.Dir, "out.b64"),
	)
	args = append(args, v.netArgs()...)
	for i, sh := range v.Shares {
		if strings.ContainsAny(sh.Tag+sh.Path, ", ") {
			return nil, fmt.Errorf("share %q at %q: no commas or spaces", sh.Tag, sh.Path)
		}
		ro := ""
		if sh.ReadOnly {
			ro = ",readonly=on"
		}
		args = append(args, "-fsdev", fmt.Sprintf("local,id=fs%d,path=%s,security_model=none%s", i, sh.Path, ro),
			"-device", fmt.Sprintf("virtio-9p-pci,fsdev=fs%d,mount_tag=%s", i, sh.Tag))
	}
	for i, d := range v.Disks {
		if strings.ContainsAny(d, ", ") {
			return nil, fmt.Errorf("disk %q: no commas or spaces", d)
		}
		args = append(args, "-drive", fmt.Sprintf("file=%s,if=none,id=vd%d,format=raw,readonly=on", d, i),
			"-device", fmt.Sprintf("virtio-blk-pci,drive=vd%d", i))
	}
	for i, c := range v.Controllers {
		dev, err := v.controllerArgs(i, c)
		if err != nil {
			return nil, err
		}
		args = append(args, dev...)
	}
	return args, nil
}

// netArgs: no NIC, or one virtio NIC on a restricted user-mode network
// whose forwards listen on the host's 127.0.0.1 only.
func (v VM) netArgs() []string {
	if v.Net == nil {
		return []string{"-nic", "none"}
	}
	nd := "user,id=n0,restrict=on"
	for _, f := range v.Net.Forwards {
		nd += fmt.Sprintf(",hostfwd=tcp:127.0.0.1:%d-:%d", f.Host, f.Guest)
	}
	return []string{"-netdev", nd, "-device", "virtio-net-pci,netdev=n0"}
}

// controllerArgs is one controller's -drive/-device arguments: the plain
// form (one namespace, drive= on the controller), or, with FDP or explicit
// namespaces, a subsystem, the controller and one nvme-ns per namespace.
func (v VM) controllerArgs(i int, c Controller) ([]string, error) {
	if strings.ContainsAny(c.Serial, ",= ") {
		return nil, fmt.Errorf("controller serial %q: no commas, equals or spaces", c.Serial)
	}
	ocp := ""
	if c.OCP {
		ocp = ",ocp=on"
	}
	if c.FDP == nil && len(c.Namespaces) == 0 {
		disk, err := sparseDisk(filepath.Join(v.Dir, fmt.Sprintf("disk%d.raw", i)), c.DiskMiB)
		if err != nil {
			return nil, err
		}
		return []string{
			"-drive", fmt.Sprintf("file=%s,if=none,id=d%d,format=raw", disk, i),
			"-device", fmt.Sprintf("nvme,serial=%s,drive=d%d%s", c.Serial, i, ocp)}, nil
	}
	subsys := fmt.Sprintf("nvme-subsys,id=subsys%d,nqn=%s", i, c.Serial)
	if f := c.FDP; f != nil {
		subsys += fmt.Sprintf(",fdp=on,fdp.runs=%d,fdp.nrg=%d,fdp.nruh=%d", f.RUSize, f.Groups, f.Handles)
	}
	args := []string{"-device", subsys,
		"-device", fmt.Sprintf("nvme,id=ctrl%d,serial=%s,subsys=subsys%d%s", i, c.Serial, i, ocp)}
	nss := c.Namespaces
	if len(nss) == 0 {
		nss = []Namespace{{DiskMiB: c.DiskMiB}}
	}
	for j, ns := range nss {
		if strings.Trim(ns.Handles, "0123456789;-") != "" {
			return nil, fmt.Errorf("controller %s namespace %d: handles %q: only digits, ';' and '-'", c.Serial, j+1, ns.Handles)
		}
		disk, err := sparseDisk(filepath.Join(v.Dir, fmt.Sprintf("disk%d-%d.raw", i, j+1)), ns.DiskMiB)
		if err != nil {
			return nil, err
		}
		dev := fmt.Sprintf("nvme-ns,drive=d%d_%d,bus=ctrl%d,nsid=%d", i, j+1, i, j+1)
		if ns.Handles != "" {
			dev += ",fdp.ruhs=" + ns.Handles
		}
		args = append(args, "-drive", fmt.Sprintf("file=%s,if=none,id=d%d_%d,format=raw", disk, i, j+1), "-device", dev)
	}
	return args, nil
}

// sparseDisk creates a raw image of mib MiB (64 when 0) that costs no disk
// until written.
func sparseDisk(path string, mib int) (string, error) {
	if mib == 0 {
		mib = 64
	}
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	err = f.Truncate(int64(mib) << 20)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return path, err
}

// command is QEMU's process for this VM: its own process group (a
// timeout kills QEMU and anything it forked) and Pdeathsig (a test binary
// killed by `go test -timeout` takes QEMU along).
func (v VM) command(ctx context.Context, stderr io.Writer) (*exec.Cmd, error) {
	args, err := v.Args()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, v.QEMU, args...)
	cmd.Stdout, cmd.Stderr = stderr, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	return cmd, nil
}

// Boot runs QEMU until the guest powers off, or ctx ends (then the whole
// process group is killed). It returns what the guest sent even when the
// output is missing, so a failing test can show the console.
func (v VM) Boot(ctx context.Context) (Run, error) {
	var stderr bytes.Buffer
	cmd, err := v.command(ctx, &stderr)
	if err != nil {
		return Run{}, err
	}
	start := time.Now()
	runErr := cmd.Run()
	r := Run{Duration: time.Since(start), Console: v.Console()}
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

// Console is what the guest wrote to its first serial port so far.
func (v VM) Console() string {
	con, _ := os.ReadFile(filepath.Join(v.Dir, "console.log"))
	return string(con)
}

// Serial2 is what the guest wrote to its second serial port so far.
func (v VM) Serial2() string {
	b, _ := os.ReadFile(filepath.Join(v.Dir, "out.b64"))
	return string(b)
}

// Guest is a VM left running (a database host): Stop ends it.
type Guest struct {
	VM
	cmd    *exec.Cmd
	done   chan struct{}
	err    error
	stderr testenv.Buffer // QEMU's output, read while QEMU runs
	start  time.Time
}

// Start boots the VM and returns while it runs; ctx's end kills it.
func (v VM) Start(ctx context.Context) (*Guest, error) {
	g := &Guest{VM: v, done: make(chan struct{})}
	cmd, err := v.command(ctx, &g.stderr)
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	g.cmd, g.start = cmd, time.Now()
	go func() { g.err = cmd.Wait(); close(g.done) }()
	return g, nil
}

// Exited says whether QEMU ended, and how.
func (g *Guest) Exited() (bool, error) {
	select {
	case <-g.done:
		return true, fmt.Errorf("qemu ended: %v: %s", g.err, g.stderr.String())
	default:
		return false, nil
	}
}

// Diagnosis says why a guest may not have come up: whether QEMU still
// runs and how much CPU it got in the time it ran (a TCG guest starved by
// a busy machine gets a small share), QEMU's own output, the forwarded
// ports it was to hold, and the ends of both serial ports.
func (g *Guest) Diagnosis() string {
	var b strings.Builder
	wall := time.Since(g.start).Round(time.Second)
	if done, err := g.Exited(); done {
		fmt.Fprintf(&b, "QEMU: %v\n", err)
	} else if cpu, ok := processCPU(g.cmd.Process.Pid); ok {
		fmt.Fprintf(&b, "QEMU (pid %d) still runs: %s of CPU in %s of wall time (a starved TCG guest gets a small share)\n", g.cmd.Process.Pid, cpu.Round(time.Second), wall)
	} else {
		fmt.Fprintf(&b, "QEMU (pid %d) still runs, for %s; its CPU time could not be read\n", g.cmd.Process.Pid, wall)
	}
	fmt.Fprintf(&b, "QEMU's own output: %s\n", orNone(g.stderr.String()))
	if g.Net != nil {
		for _, f := range g.Net.Forwards {
			state := "accepts connections"
			if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", f.Host), time.Second); err != nil {
				state = err.Error()
			} else {
				c.Close()
			}
			fmt.Fprintf(&b, "forward: 127.0.0.1:%d -> guest port %d: %s\n", f.Host, f.Guest, state)
		}
	}
	fmt.Fprintf(&b, "console (serial 1): %s\n", orNone(Tail(g.Console(), 4000)))
	fmt.Fprintf(&b, "serial 2: %s", orNone(Tail(g.Serial2(), 1000)))
	return b.String()
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(empty)"
	}
	return s
}

// processCPU is the user and system CPU time of a process and its waited
// children, from /proc/PID/stat (fields 14-17, in clock ticks of 100 Hz,
// Linux's USER_HZ on every architecture it exports).
func processCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3 (state)
	if len(f) < 15 {
		return 0, false
	}
	var ticks int64
	for _, s := range f[11:15] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, false
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond, true
}

// Stop kills QEMU's process group and waits for it.
func (g *Guest) Stop() {
	_ = syscall.Kill(-g.cmd.Process.Pid, syscall.SIGKILL)
	<-g.done
}

// MinQEMU is the oldest QEMU these tests accept: 10.0 emulates FDP (since
// 8.0), the OCP 0xC0 log and always gives a controller a subsystem, and the
// tests assert that behaviour.
const MinQEMU = 10

// ParseVersion reads major and minor from `qemu-system-x86_64 --version`
// output ("QEMU emulator version 10.0.2 (Debian ...)").
func ParseVersion(out string) (major, minor int, err error) {
	const prefix = "QEMU emulator version "
	i := strings.Index(out, prefix)
	if i < 0 {
		return 0, 0, fmt.Errorf("no %q in %q", prefix, firstLine(out))
	}
	words := strings.Fields(out[i+len(prefix):])
	var f []string
	if len(words) > 0 {
		f = strings.SplitN(words[0], ".", 3)
	}
	if len(f) < 2 {
		return 0, 0, fmt.Errorf("version %q: want major.minor", firstLine(out[i:]))
	}
	if major, err = strconv.Atoi(f[0]); err == nil {
		minor, err = strconv.Atoi(f[1])
	}
	if err != nil {
		return 0, 0, fmt.Errorf("version in %q: %w", firstLine(out[i:]), err)
	}
	return major, minor, nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
