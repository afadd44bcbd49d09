//go:build linux

package qemu

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/decode"
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
# scrape NAME: the exporter's /metrics (on 127.0.0.1:10131) into /out/NAME.
scrape() {
	i=0
	until wget -q -O /out/$1 http://127.0.0.1:10131/metrics; do
		i=$((i+1)); [ $i -gt 100 ] && return 1
		sleep 0.2
	done
}
# nsdev SERIAL NSID: the block device (nvme0n2) of namespace NSID of the
# controller whose subsystem NQN ends in SERIAL (QEMU's default NQN); the
# kernel names disks by subsystem and by scan order, not by controller and
# NSID. Waits up to 10 s for the namespace to appear.
nsdev() {
	i=0
	while [ $i -lt 100 ]; do
		for b in /sys/block/nvme*n*; do
			case ${b##*/} in *c*) continue;; esac # a multipath path (nvme1c1n2), not a disk
			[ "$(cat $b/nsid 2>/dev/null)" = "$2" ] || continue
			case "$(cat $b/device/subsysnqn 2>/dev/null)" in *:$1) echo ${b##*/}; return 0;; esac
		done
		i=$((i+1)); sleep 0.1
	done
	echo "nsdev: no namespace $2 of $1" >&2
	return 1
}
step() {
	name=$1; shift
	"$@" > /out/$name.log 2>&1
	rc=$?
	echo "$name $rc" >> /out/steps
	echo "walab-guest: $name rc=$rc"
}
while read -r m; do insmod "$m" >> /out/insmod.log 2>&1 || echo "insmod $m failed" >> /out/insmod.log; done < /etc/modules.order
i=0
while [ "$(ls /sys/block | grep -c '^nvme[0-9]*n1$')" -lt @CONTROLLERS@ ]; do
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

// guestSteps: capture every controller with the exporter, write 8 MiB with
// O_DIRECT to the namespace of the controller whose serial is walab0001
// (the other one is the control: its counters must not move), capture
// again, run walab's own guest program (independent live reads and the
// guard check), then serve on loopback and scrape twice.
const guestSteps = `ip link set lo up
ctrls=$(ls /sys/class/nvme | tr '\n' ' ')
target=
for c in $ctrls; do read -r s < /sys/class/nvme/$c/serial; [ "$s" = walab0001 ] && target=$c; done
echo "$target" > /out/target
step capture1 /exporter capture --out /out/1
step dd dd if=/dev/urandom of=/dev/$(nsdev walab0001 1) bs=1M count=8 iflag=fullblock oflag=direct
step sync sync
step capture2 /exporter capture --out /out/2
step guest /walab-guest -out /out/guest $ctrls
/exporter --web.listen-address=127.0.0.1:10131 --nvme.cache-max-age=200ms --no-collector.innodb > /out/serve.log 2>&1 &
pid=$!
step scrape1 scrape metrics1.txt
sleep 1
step scrape2 scrape metrics2.txt
kill $pid`

// guestRun boots the VM of TestQEMUNVMeIoctl once and returns the
// unpacked /out directory and the exporter binary it put in the guest
// (static, so it runs on the host too).
func guestRun(t *testing.T) (outDir, exporterBin string) {
	t.Helper()
	// The crypto providers are soft dependencies of crc-t10dif and
	// crc64-rocksoft (modprobe would load them; insmod does not).
	return bootGuest(t, guestSteps, []Controller{{Serial: "walab0001", DiskMiB: 64}, {Serial: "walab0002", DiskMiB: 64}},
		[]string{"nvme"}, []string{"crct10dif_generic", "crc64_rocksoft_generic"})
}

// bootGuest boots Debian's kernel with the given NVMe controllers and an
// initramfs holding walab's exporter and guest program, the modules (and
// their dependencies), and /init running steps once every controller's
// first namespace is there; it returns the unpacked /out directory.
// Each of tools (a package directory beside this file, "./placewrite") is
// built and put at /<its base name>.
func bootGuest(t *testing.T, steps string, ctrls []Controller, modules, optional []string, tools ...string) (outDir, exporterBin string) {
	t.Helper()
	qemuBin := RequireQEMU(t)
	k, err := FindKernel("/boot", "/lib/modules")
	if err != nil {
		testenv.Missing(t, "%v", err)
	}
	busybox := "/bin/busybox"
	if _, err := os.Stat(busybox); err != nil {
		testenv.Missing(t, "busybox-static: %v", err)
	}
	dir := t.TempDir() // removed on failure too

	guestBin := BuildStatic(t, dir, "walab-guest", "./guest")
	exporterBin = BuildStatic(t, dir, "exporter", "../../exporter")

	init := strings.NewReplacer("@STEPS@", steps, "@CONTROLLERS@", fmt.Sprint(len(ctrls))).Replace(guestInit)
	a, err := BaseArchive(busybox, init)
	require.NoError(t, err)
	require.NoError(t, AddStaticBinary(a, "walab-guest", guestBin))
	require.NoError(t, AddStaticBinary(a, "exporter", exporterBin))
	for _, pkg := range tools {
		name := filepath.Base(pkg)
		require.NoError(t, AddStaticBinary(a, name, BuildStatic(t, dir, name, pkg)))
	}
	mods, err := AddModules(a, k, modules, optional)
	require.NoError(t, err)
	t.Logf("kernel %s, modules %v", k.Version, mods)
	initrd := filepath.Join(dir, "initramfs.cpio")
	f, err := os.Create(initrd)
	require.NoError(t, err)
	_, err = a.WriteTo(f)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	vm := VM{QEMU: qemuBin, Kernel: k, Initramfs: initrd, Dir: dir, Cmdline: "quiet no_timer_check",
		Controllers: ctrls}
	var run Run
	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), bootTimeout)
		run, err = vm.Boot(ctx)
		cancel()
		if err == nil {
			break
		}
		t.Logf("boot %d failed: %v\nguest console:\n%s", attempt, err, Tail(run.Console, 4000))
		// A kernel that never reached /init (an emulated-timer stall on a
		// starved TCG CPU) says nothing about walab: boot once more. Any
		// failure after /init started is the test's business.
		if attempt == 2 || strings.Contains(run.Console, "walab-guest: init") {
			require.NoError(t, err)
		}
	}
	t.Logf("QEMU ran %s; guest console:\n%s", run.Duration.Round(time.Millisecond), Tail(run.Console, 3000))
	outDir = filepath.Join(dir, "out")
	if keep := os.Getenv("WALAB_QEMU_KEEP"); keep != "" {
		outDir = keep // for looking at a run by hand
	}
	require.NoError(t, untar(run.Output, outDir))
	return outDir, exporterBin
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

// requireSteps checks that every guest step ran and exited 0, showing the
// failing steps' output otherwise.
func requireSteps(t *testing.T, out string, names ...string) {
	t.Helper()
	steps, err := os.ReadFile(filepath.Join(out, "steps"))
	require.NoError(t, err)
	var want, logs strings.Builder
	for _, n := range names {
		fmt.Fprintf(&want, "%s 0\n", n)
		if !strings.Contains(string(steps), n+" 0\n") {
			b, _ := os.ReadFile(filepath.Join(out, n+".log"))
			fmt.Fprintf(&logs, "--- %s:\n%s\n", n, Tail(string(b), 2000))
		}
	}
	require.Equal(t, want.String(), string(steps), "guest steps; output of the failed ones:\n%s", logs.String())
}

// ctrlBySerial maps serial -> controller folder name of a capture root;
// the driver probes controllers asynchronously, so nvme0 is not
// necessarily the first -device.
func ctrlBySerial(t *testing.T, root string) map[string]string {
	t.Helper()
	names, err := replay.Controllers(root)
	require.NoError(t, err)
	out := map[string]string{}
	for _, n := range names {
		serial, err := replay.ReadText(filepath.Join(root, n), replay.FileSerial)
		require.NoError(t, err)
		out[serial] = n
	}
	return out
}

func readSMART(t *testing.T, dir string) decode.SMART {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "log-02.bin"))
	require.NoError(t, err)
	sm, err := decode.ParseSMART(b)
	require.NoError(t, err)
	return sm
}

func readGuestReport(t *testing.T, dir string) Report {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	require.NoError(t, err)
	var r Report
	require.NoError(t, json.Unmarshal(b, &r))
	return r
}

func parseMetrics(t *testing.T, text []byte) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(bytes.NewReader(text))
	require.NoError(t, err)
	return mfs
}

// series flattens a family to "name{labels}" -> value.
func series(mf *dto.MetricFamily) map[string]float64 {
	out := map[string]float64{}
	if mf == nil {
		return out
	}
	for _, m := range mf.GetMetric() {
		var ls []string
		for _, l := range m.GetLabel() {
			ls = append(ls, l.GetName()+"="+l.GetValue())
		}
		v := m.GetGauge().GetValue() + m.GetCounter().GetValue() + m.GetUntyped().GetValue()
		out[mf.GetName()+"{"+strings.Join(ls, ",")+"}"] = v
	}
	return out
}

// replayScrape runs the exporter on the host against a capture (through
// internal/nvme/replay) on a loopback port and returns one scrape.
func replayScrape(t *testing.T, exporterBin, captureDir string) []byte {
	t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exporterBin, "--nvme.replay="+captureDir, "--web.listen-address="+addr,
		"--no-collector.innodb", "--no-collector.irq", "--no-collector.filesystem",
		"--config.file="+writeFile(t, "wa:\n  persist: false\n"))
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	require.NoError(t, cmd.Start())
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	for ctx.Err() == nil {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err == nil {
			body, rerr := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.NoError(t, rerr)
			require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
			return body
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("replay exporter never answered on %s: %s", addr, logs.String())
	return nil
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

func TestQEMUNVMeIoctl(t *testing.T) {
	if testing.Short() {
		t.Skip("boots a VM (about a minute under TCG)")
	}
	start := time.Now()
	out, exporterBin := guestRun(t)
	requireSteps(t, out, "capture1", "dd", "sync", "capture2", "guest", "scrape1", "scrape2")

	cap1, cap2 := filepath.Join(out, "1"), filepath.Join(out, "2")
	ctrls := ctrlBySerial(t, cap2)
	require.Equal(t, ctrls, ctrlBySerial(t, cap1))
	require.Len(t, ctrls, 2)
	target, control := ctrls["walab0001"], ctrls["walab0002"]
	require.NotEmpty(t, target)
	require.NotEmpty(t, control)
	live := parseMetrics(t, mustRead(t, filepath.Join(out, "metrics2.txt")))

	t.Run("identify matches the QEMU command line", func(t *testing.T) {
		for serial, name := range ctrls {
			b, err := os.ReadFile(filepath.Join(cap2, name, "id-ctrl.bin"))
			require.NoError(t, err)
			id, err := decode.ParseIDController(b)
			require.NoError(t, err)
			require.Equal(t, serial, id.Serial)
			require.Equal(t, "QEMU NVMe Ctrl", id.Model)
			require.Equal(t, uint16(0x1B36), id.VID, "Red Hat's PCI vendor id")
			info := series(live["walab_nvme_info"])
			require.Contains(t, info, fmt.Sprintf("walab_nvme_info{device=%s,firmware=%s,model=QEMU NVMe Ctrl,serial=%s,simulated=false,source=endurance_group,unit_confirmed=true}", name, id.Firmware, serial))
		}
		require.Equal(t, target+"\n", string(mustRead(t, filepath.Join(out, "target"))), "the guest wrote to walab0001")
	})

	t.Run("SMART data units written grew by what the guest wrote", func(t *testing.T) {
		// QEMU keeps DUW = ceil(512-byte sectors written / 1000): 8 MiB
		// = 16384 sectors -> 17 units on a fresh image (nvme-layouts.md 10).
		before, after := readSMART(t, filepath.Join(cap1, target)), readSMART(t, filepath.Join(cap2, target))
		require.Equal(t, decode.U128{}, before.DataUnitsWritten)
		require.Equal(t, decode.U128{Lo: 17}, after.DataUnitsWritten)
		require.GreaterOrEqual(t, after.HostWriteCommands.Lo-before.HostWriteCommands.Lo, uint64(8), "at least one command per 1 MiB")
		m := series(live["walab_nvme_smart_data_units_written_bytes_total"])
		require.Equal(t, 17*512000.0, m["walab_nvme_smart_data_units_written_bytes_total{device="+target+"}"])
		// The control controller saw no writes.
		require.Equal(t, readSMART(t, filepath.Join(cap1, control)).DataUnitsWritten, readSMART(t, filepath.Join(cap2, control)).DataUnitsWritten)
		require.Equal(t, 0.0, m["walab_nvme_smart_data_units_written_bytes_total{device="+control+"}"])
	})

	t.Run("pages of a plain QEMU 10 controller: 0x09 and directives read, 0xC0 probed once, FDP not tried", func(t *testing.T) {
		sent := series(live["walab_nvme_admin_commands_total"])
		errs := series(live["walab_nvme_admin_command_errors_total"])
		for _, name := range ctrls {
			for _, root := range []string{cap1, cap2} {
				for pat, n := range map[string]int{"log-c0*": 0, "log-2[0-3]*": 0, "feat-1d*": 0, "log-09-lsi1.bin": 1, "dir-00-01.bin": 1} {
					m, err := filepath.Glob(filepath.Join(root, name, pat))
					require.NoError(t, err)
					require.Len(t, m, n, "capture %s/%s: %s", root, name, pat)
				}
			}
			// QEMU 10 always gives a controller a subsystem, so Identify
			// advertises endurance groups (CTRATT bit 4) and directives
			// (OACS bit 5), not FDP (bit 19): the exporter polls 0x09 as its
			// NAND source, asked for 0xC0 (off without ocp=on) once, and
			// never sends an FDP page or feature.
			require.GreaterOrEqual(t, sent["walab_nvme_admin_commands_total{device="+name+",log_id=0x09,opcode=get_log_page}"], 2.0)
			require.Equal(t, 1.0, sent["walab_nvme_admin_commands_total{device="+name+",log_id=0xc0,opcode=get_log_page}"])
			require.Equal(t, 1.0, errs["walab_nvme_admin_command_errors_total{device="+name+",opcode=get_log_page,status=0x4002}"])
			for k := range sent {
				require.NotRegexp(t, `log_id=0x2[0-3]`, k)
			}

			// walab's own guest program sends each once, through the same ioctl.
			rep := readGuestReport(t, filepath.Join(out, "guest", name))
			for _, res := range rep.Results {
				switch res.Name {
				case "OCP SMART extended (0xC0)":
					require.True(t, res.Unsupported, "%s %s: %s", name, res.Name, res.Error)
					require.Equal(t, uint16(0x4002), res.Status, "Invalid Field in Command, DNR")
				case "FDP statistics (0x22)":
					require.False(t, res.OK, "%s %s", name, res.Name)
					require.Equal(t, uint16(0x4029), res.Status, "FDP Disabled, DNR")
				case "endurance group (0x09)", "directive receive identify":
					require.True(t, res.OK, "%s %s: %s", name, res.Name, res.Error)
				}
			}
			gs := map[[2]uint8]uint64{}
			for _, s := range rep.Sent {
				gs[[2]uint8{s.Opcode, s.LogID}] = s.Count
			}
			require.Equal(t, map[[2]uint8]uint64{
				{admin.OpIdentify, 0}: 2, {admin.OpGetLogPage, 0x02}: 1, {admin.OpGetLogPage, 0xC0}: 1,
				{admin.OpGetLogPage, 0x09}: 1, {admin.OpGetLogPage, 0x22}: 1, {admin.OpDirectiveReceive, 0}: 1,
			}, gs, "%s: one attempt per command", name)
		}
		// QEMU's 0x09 counts data and media units as
		// DIV_ROUND_UP(bytes / 10^9, 10^9): 0 until a gigabyte is written
		// (docs/nvme-decoders.md). walab shows the page as it is.
		host := series(live["walab_nvme_host_written_bytes_total"])
		require.Equal(t, 0.0, host["walab_nvme_host_written_bytes_total{device="+target+",source=endurance_group}"], "%v", host)
	})

	t.Run("nothing outside the read-only allowlist reached the kernel", func(t *testing.T) {
		allowed := map[string]bool{"identify": true, "get_log_page": true, "get_features": true, "directive_receive": true}
		for _, m := range live["walab_nvme_admin_commands_total"].GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "opcode" {
					require.True(t, allowed[l.GetValue()], "exporter sent opcode %q", l.GetValue())
				}
			}
		}
		for k, v := range series(live["walab_nvme_admin_commands_refused_total"]) {
			require.Zero(t, v, k)
		}
		for _, name := range ctrls {
			rep := readGuestReport(t, filepath.Join(out, "guest", name))
			for _, s := range rep.Sent {
				require.True(t, admin.Allowed(s.Opcode), "%s: opcode 0x%02x reached the ioctl", name, s.Opcode)
			}
			require.Equal(t, uint64(1), rep.Refused, "the Format NVM attempt was refused in-process")
			last := rep.Results[len(rep.Results)-1]
			require.True(t, last.Refused, last.Error)
		}
		require.NotContains(t, string(mustRead(t, filepath.Join(out, "dmesg.txt"))), "I/O Error")
	})

	t.Run("the capture replays to the live values", func(t *testing.T) {
		// 1. The exporter's capture, replayed through walab's own command
		//    list, decodes to what the guest program read live.
		for _, name := range ctrls {
			rep := readGuestReport(t, filepath.Join(out, "guest", name))
			dev, err := replay.Open(name, filepath.Join(cap2, name))
			require.NoError(t, err)
			got, err := Exercise(context.Background(), dev, nil)
			require.NoError(t, err)
			require.Equal(t, rep.Values, got.Values, "%s: replay decodes to the live values", name)
			for i, res := range got.Results {
				if res.Name == "FDP statistics (0x22)" {
					// The exporter never sends 0x22 to a controller without
					// FDP, so the capture has no answer: replay says
					// unsupported where the live controller said FDP Disabled.
					require.True(t, res.Unsupported)
					continue
				}
				require.Equal(t, rep.Results[i].OK, res.OK, "%s %s", name, res.Name)
				require.Equal(t, rep.Results[i].Unsupported, res.Unsupported, "%s %s", name, res.Name)
				require.Equal(t, rep.Results[i].Refused, res.Refused, "%s %s", name, res.Name)
			}
		}
		// 2. The exporter on the host, serving the capture, publishes the
		//    same NVMe metrics as the exporter serving the live devices.
		//    Admin-command counters differ by design (different histories),
		//    and so does the WA sampler's own state (QEMU 10's 0x09 gives it
		//    a source): its run start, sample count and times belong to each
		//    process, and the live exporter persists its state file while the
		//    replaying one runs with wa.persist false.
		replayed := parseMetrics(t, replayScrape(t, exporterBin, cap2))
		compared := 0
		for name, mf := range live {
			if !strings.HasPrefix(name, "walab_nvme_") || strings.HasPrefix(name, "walab_nvme_admin_") ||
				strings.HasPrefix(name, "walab_nvme_wa_") || strings.HasPrefix(name, "walab_nvme_run_start_") {
				continue
			}
			require.Equal(t, series(mf), series(replayed[name]), name)
			compared++
		}
		require.GreaterOrEqual(t, compared, 15, "NVMe families compared")
	})
	t.Logf("total test time %s", time.Since(start).Round(time.Millisecond))
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}
