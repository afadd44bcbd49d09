//go:build linux

package qemu

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/replay"
	"github.com/walab/walab/internal/testenv"
)

// bootTimeout bounds the whole guest run. TCG on a loaded 2-core box boots
// Debian's kernel in well under a minute; this leaves room for CI noise.
const bootTimeout = 4 * time.Minute

// guestInit is the guest's /init: mount, load the nvme driver, capture,
// write 8 MiB with O_DIRECT, capture again, send /out as base64 tar on the
// second serial port, power off.
const guestInit = `#!/bin/sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
echo "walab-guest: init at $(cut -d' ' -f1 /proc/uptime)s"
step() {
	name=$1; shift
	"$@" > /out/$name.log 2>&1
	rc=$?
	echo "$name $rc" >> /out/steps
	echo "walab-guest: $name rc=$rc"
}
while read -r m; do insmod "$m" >> /out/insmod.log 2>&1 || echo "insmod $m failed" >> /out/insmod.log; done < /etc/modules.order
i=0
while [ ! -e /dev/nvme0n1 ] || [ ! -e /dev/nvme1n1 ]; do
	i=$((i+1)); [ $i -gt 600 ] && break
	sleep 0.1
done
echo "walab-guest: nvme ready at $(cut -d' ' -f1 /proc/uptime)s"
ls /sys/class/nvme > /out/controllers
@STEPS@
dmesg > /out/dmesg.txt
cut -d' ' -f1 /proc/uptime > /out/uptime
tar -c -f /tmp/out.tar -C /out .
{ echo ` + OutBegin + `; base64 /tmp/out.tar; echo ` + OutEnd + `; } > /dev/ttyS1
sync
sleep 1
poweroff -f
echo o > /proc/sysrq-trigger
`

// guestSteps: capture every controller, write 8 MiB with O_DIRECT to the
// namespace of the controller whose serial is walab0001 (the other one is
// the control: its counters must not move), capture again.
const guestSteps = `ctrls=$(ls /sys/class/nvme | tr '\n' ' ')
target=
for c in $ctrls; do read -r s < /sys/class/nvme/$c/serial; [ "$s" = walab0001 ] && target=$c; done
echo "$target" > /out/target
step capture1 /walab-guest -out /out/1 $ctrls
step dd dd if=/dev/urandom of=/dev/${target}n1 bs=1M count=8 iflag=fullblock oflag=direct
step sync sync
step capture2 /walab-guest -out /out/2 $ctrls`

// guestRun boots the VM once and returns the unpacked /out directory.
func guestRun(t *testing.T) (string, Run) {
	t.Helper()
	qemuBin := testenv.RequireBinary(t, "qemu-system-x86_64")
	k, err := FindKernel("/boot", "/lib/modules")
	if err != nil {
		testenv.Missing(t, "%v", err)
	}
	busybox := "/bin/busybox"
	if _, err := os.Stat(busybox); err != nil {
		testenv.Missing(t, "busybox-static: %v", err)
	}
	dir := t.TempDir() // removed on failure too

	guestBin := filepath.Join(dir, "walab-guest")
	build := exec.Command("go", "build", "-o", guestBin, "./guest")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "build guest: %s", out)

	a, err := BaseArchive(busybox, strings.Replace(guestInit, "@STEPS@", guestSteps, 1))
	require.NoError(t, err)
	require.NoError(t, AddStaticBinary(a, "walab-guest", guestBin))
	// The crypto providers are soft dependencies of crc-t10dif and
	// crc64-rocksoft (modprobe would load them; insmod does not).
	mods, err := AddModules(a, k, []string{"nvme"}, []string{"crct10dif_generic", "crc64_rocksoft_generic"})
	require.NoError(t, err)
	t.Logf("kernel %s, modules %v", k.Version, mods)
	initrd := filepath.Join(dir, "initramfs.cpio")
	f, err := os.Create(initrd)
	require.NoError(t, err)
	_, err = a.WriteTo(f)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	vm := VM{QEMU: qemuBin, Kernel: k, Initramfs: initrd, Dir: dir, Cmdline: "quiet",
		Controllers: []Controller{{Serial: "walab0001", DiskMiB: 64}, {Serial: "walab0002", DiskMiB: 64}}}
	ctx, cancel := context.WithTimeout(context.Background(), bootTimeout)
	defer cancel()
	run, err := vm.Boot(ctx)
	if err != nil {
		t.Logf("guest console:\n%s", tail(run.Console, 4000))
	}
	require.NoError(t, err)
	t.Logf("QEMU ran %s; guest console:\n%s", run.Duration.Round(time.Millisecond), tail(run.Console, 3000))
	outDir := filepath.Join(dir, "out")
	if keep := os.Getenv("WALAB_QEMU_KEEP"); keep != "" {
		outDir = keep // for looking at a run by hand
	}
	require.NoError(t, untar(run.Output, outDir))
	return outDir, run
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

func untar(b []byte, dir string) error {
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(p, filepath.Clean(dir)) {
			return errors.New("tar entry escapes the output directory: " + h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			data, err := io.ReadAll(tr)
			if err != nil {
				return err
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				return err
			}
		}
	}
}

// byserial loads every controller's results.json from a capture root,
// keyed by serial: the driver probes controllers asynchronously, so nvme0
// is not necessarily the first -device.
func bySerial(t *testing.T, root string) map[string]Report {
	t.Helper()
	ctrls, err := replay.Controllers(root)
	require.NoError(t, err)
	out := map[string]Report{}
	for _, name := range ctrls {
		dir := filepath.Join(root, name)
		b, err := os.ReadFile(filepath.Join(dir, "results.json"))
		require.NoError(t, err)
		var r Report
		require.NoError(t, json.Unmarshal(b, &r))
		r.Device = filepath.Base(dir)
		out[r.Values["serial"]] = r
	}
	return out
}

func TestQEMUNVMeIoctl(t *testing.T) {
	if testing.Short() {
		t.Skip("boots a VM (about a minute under TCG)")
	}
	start := time.Now()
	out, _ := guestRun(t)
	steps, err := os.ReadFile(filepath.Join(out, "steps"))
	require.NoError(t, err)
	require.Equal(t, "capture1 0\ndd 0\nsync 0\ncapture2 0\n", string(steps), "guest steps (logs in the tar: capture1.log, dd.log, ...)")

	before, after := bySerial(t, filepath.Join(out, "1")), bySerial(t, filepath.Join(out, "2"))
	require.Len(t, before, 2)
	require.Len(t, after, 2)
	target, control := after["walab0001"], after["walab0002"]

	t.Run("identify matches the QEMU command line", func(t *testing.T) {
		for serial, r := range after {
			require.Equal(t, serial, r.Values["serial"])
			require.Equal(t, "QEMU NVMe Ctrl", r.Values["model"])
			require.Equal(t, "0x1b36", r.Values["vid"], "Red Hat's PCI vendor id")
			require.Equal(t, "131072", r.Values["ns1_size_blocks"], "64 MiB of 512-byte blocks")
		}
		tgt, err := os.ReadFile(filepath.Join(out, "target"))
		require.NoError(t, err)
		require.Equal(t, target.Device+"\n", string(tgt), "the guest wrote to the walab0001 controller")
	})

	t.Run("SMART data units written grew by what the guest wrote", func(t *testing.T) {
		// QEMU 7.2 counts DUW = ceil(512-byte sectors written / 1000) from
		// its block accounting: 8 MiB = 16384 sectors -> 17 units on a
		// fresh image (nvme-layouts.md section 10).
		require.Equal(t, "0", before["walab0001"].Values["data_units_written"])
		require.Equal(t, "17", target.Values["data_units_written"])
		require.Equal(t, "8704000", target.Values["host_written_bytes"], "17 x 512000")
		cmds, err := strconv.Atoi(target.Values["host_write_commands"])
		require.NoError(t, err)
		require.GreaterOrEqual(t, cmds, 8, "at least one write command per 1 MiB block")
		// The control controller saw no writes at all.
		require.Equal(t, "0", control.Values["data_units_written"])
		require.Equal(t, "0", control.Values["host_write_commands"])
	})

	t.Run("pages QEMU 7.2 lacks are unsupported, asked once, not captured", func(t *testing.T) {
		for _, r := range after {
			for _, res := range r.Results {
				switch res.Name {
				case "OCP SMART extended (0xC0)", "endurance group (0x09)", "FDP statistics (0x22)":
					require.True(t, res.Unsupported, "%s %s: %s", r.Device, res.Name, res.Error)
					require.Equal(t, uint16(0x4002), res.Status, "Invalid Field in Command, DNR")
				case "directive receive identify":
					require.True(t, res.Unsupported, "%s %s: %s", r.Device, res.Name, res.Error)
					require.Equal(t, uint16(0x4001), res.Status, "Invalid Command Opcode, DNR")
				}
			}
			for _, f := range []string{"log-c0.bin", "log-09-lsi1.bin", "log-22-lsi1.bin", "dir-00-01.bin"} {
				require.NoFileExists(t, filepath.Join(out, "2", r.Device, f))
			}
			sent := map[[2]uint8]uint64{}
			for _, s := range r.Sent {
				sent[[2]uint8{s.Opcode, s.LogID}] = s.Count
			}
			require.Equal(t, map[[2]uint8]uint64{
				{admin.OpIdentify, 0}:         2, // controller, namespace
				{admin.OpGetLogPage, 0x02}:    1,
				{admin.OpGetLogPage, 0xC0}:    1,
				{admin.OpGetLogPage, 0x09}:    1,
				{admin.OpGetLogPage, 0x22}:    1,
				{admin.OpDirectiveReceive, 0}: 1,
			}, sent, "%s: one attempt per command", r.Device)
		}
	})

	t.Run("nothing outside the read-only allowlist reached the kernel", func(t *testing.T) {
		for _, r := range after {
			for _, s := range r.Sent {
				require.True(t, admin.Allowed(s.Opcode), "%s: opcode 0x%02x was sent", r.Device, s.Opcode)
			}
			require.Equal(t, uint64(1), r.Refused, "the Format NVM attempt was refused in-process")
			last := r.Results[len(r.Results)-1]
			require.True(t, last.Refused, last.Error)
		}
		// Nothing the guest sent upset the driver either.
		dmesg, err := os.ReadFile(filepath.Join(out, "dmesg.txt"))
		require.NoError(t, err)
		require.NotContains(t, string(dmesg), "I/O Error")
	})

	t.Run("the capture replays to the same values", func(t *testing.T) {
		for _, r := range after {
			dev, err := replay.Open(r.Device, filepath.Join(out, "2", r.Device))
			require.NoError(t, err)
			rep, err := Exercise(context.Background(), dev, nil)
			require.NoError(t, err)
			require.Equal(t, r.Values, rep.Values, "%s: replay decodes to the live values", r.Device)
			for i, res := range rep.Results {
				live := r.Results[i]
				require.Equal(t, live.OK, res.OK, "%s %s", r.Device, res.Name)
				require.Equal(t, live.Unsupported, res.Unsupported, "%s %s", r.Device, res.Name)
				require.Equal(t, live.Refused, res.Refused, "%s %s", r.Device, res.Name)
			}
		}
	})
	t.Logf("total test time %s", time.Since(start).Round(time.Millisecond))
}
