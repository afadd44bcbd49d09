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
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

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
while [ ! -e /dev/nvme0n1 ] || [ ! -e /dev/nvme0 ]; do
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

const guestSteps = `step capture1 /walab-guest -device /dev/nvme0 -name nvme0 -out /out/1
step dd dd if=/dev/urandom of=/dev/nvme0n1 bs=1M count=8 iflag=fullblock oflag=direct
step sync sync
step capture2 /walab-guest -device /dev/nvme0 -name nvme0 -out /out/2`

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
		Controllers: []Controller{{Serial: "walab0001", DiskMiB: 64}}}
	ctx, cancel := context.WithTimeout(context.Background(), bootTimeout)
	defer cancel()
	run, err := vm.Boot(ctx)
	if err != nil {
		t.Logf("guest console:\n%s", tail(run.Console, 4000))
	}
	require.NoError(t, err)
	t.Logf("QEMU ran %s", run.Duration.Round(time.Millisecond))
	outDir := filepath.Join(dir, "out")
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

func TestQEMUNVMeIoctl(t *testing.T) {
	if testing.Short() {
		t.Skip("boots a VM (about a minute under TCG)")
	}
	out, run := guestRun(t)
	steps, err := os.ReadFile(filepath.Join(out, "steps"))
	require.NoError(t, err)
	t.Logf("steps:\n%s", steps)
	_ = run
	var rep struct{ Serial string }
	b, err := os.ReadFile(filepath.Join(out, "1", "results.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rep))
	require.Equal(t, "walab0001", rep.Serial)
}
