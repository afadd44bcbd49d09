//go:build linux

package qemu

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/nvme/decode"
)

// The drive of TestQEMUFDPFiles: one FDP subsystem with 8 reclaim unit
// handles of 128 MiB reclaim units, one namespace whose placement handles
// 0-4 are reclaim unit handles 0-4. A phase writes less than a reclaim
// unit to each handle, so a handle's bytes are exactly what its reclaim
// unit's available media writes (RUAMW) went down by.
var (
	fdpFilesDrive = Controller{Serial: "walabff01", FDP: &FDP{RUSize: fdpFilesRU, Groups: 1, Handles: 8},
		Namespaces: []Namespace{{DiskMiB: 1024, Handles: "0;1;2;3;4"}}}
	// The candidate policy: redo, doublewrite, data and the system
	// tablespace on handles of their own, the rest on handle 0.
	fdpFilesCandidate = map[string]uint16{"redo": 1, "doublewrite": 2, "data": 3, "system": 4}
)

const (
	fdpFilesRU  = 128 << 20
	fdpFilesLBA = 512
	// fdpFilesConfig is the exporter's configuration; %s is the
	// placement section's classes.
	fdpFilesConfig = `sim:
  capacity: 512MiB
  fs:
    mountpoint: /data
    backing: /var/lib/walab-fs
    device:
      path: /dev/nvme0n1
      placement:
        default: 0
        classes: {%s}
`
	// fdpFilesMariaDB starts mariadbd on the mount: the redo log small
	// (8 MiB) so every phase stays inside a reclaim unit per handle.
	fdpFilesMariaDB = `setsid mariadbd --no-defaults --user=root --datadir=/data/m --socket=/run/m.sock --pid-file=/run/m.pid ` +
		`--skip-networking --innodb-log-file-size=8M --innodb-buffer-pool-size=32M --log-error=/var/log/m.err </dev/null >/dev/null 2>&1 &
i=0; until mariadb --no-defaults -S /run/m.sock -uroot -e 'SELECT 1' >/dev/null 2>&1; do i=$((i+1)); [ $i -lt 300 ] || { tail -20 /var/log/m.err; exit 1; }; sleep 1; done`
	fdpFilesSQL = `mariadb --no-defaults -S /run/m.sock -uroot`
)

// fdpFilesPhase is one arm's figures: what the exporter says the backend
// sent (by class and handle), and what the drive's own records say it
// received (bytes per placement handle from RUH status, host bytes from
// the FDP statistics log).
type fdpFilesPhase struct {
	sent      map[string]map[uint16]float64 // class -> handle -> bytes
	label     float64
	perHandle map[uint16]uint64 // the drive: bytes per placement handle, this phase
	hostBytes uint64            // the drive: host bytes written, this phase
}

// TestQEMUFDPFiles: MariaDB on walab's filesystem with the device backend
// on QEMU's FDP drive. The candidate (a handle per class) and the
// baseline (one handle) each install and load MariaDB; the drive's own
// records show each class's bytes on its handle, and the host bytes equal
// what the backend wrote. Then the filesystem's process is killed (-9)
// while MariaDB commits: every commit MariaDB acknowledged is there after
// a restart.
func TestQEMUFDPFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("boots a VM and installs MariaDB under TCG")
	}
	h := StartDBHostDrive(t, BuildStatic(t, t.TempDir(), "exporter", "../../exporter"), "", t.TempDir(), fdpFilesDrive)
	var ruh map[uint16]uint64 // RUAMW by placement handle, before the phase
	ruh = fdpFilesRUAMW(t, h)
	for ph, w := range ruh {
		require.Equal(t, uint64(fdpFilesRU/fdpFilesLBA), w, "handle %d: a fresh reclaim unit", ph)
	}
	host := fdpFilesHostBytes(t, h)

	cand := fdpFilesRun(t, h, fdpFilesCandidate, ruh, host)
	t.Run("candidate: each class's bytes on its handle, host bytes as sent", func(t *testing.T) {
		requireOnHandles(t, cand, fdpFilesCandidate)
	})
	ruh, host = fdpFilesRUAMW(t, h), fdpFilesHostBytes(t, h)
	h.Run(t, "kill $(pidof exporter); sleep 2; rm -rf /var/lib/walab-fs; blkdiscard -f /dev/nvme0n1")
	base := fdpFilesRun(t, h, nil, ruh, host)
	t.Run("baseline: every class on handle 0, host bytes as sent", func(t *testing.T) {
		requireOnHandles(t, base, nil)
	})
	t.Run("kill -9 of the filesystem loses nothing MariaDB acknowledged", func(t *testing.T) {
		fdpFilesKill(t, h)
	})
}

// fdpFilesRun starts the exporter with the policy (nil: the baseline),
// installs MariaDB on the mount and loads it, and reads both sides.
func fdpFilesRun(t *testing.T, h *DBHostGuest, classes map[string]uint16, ruhBefore map[uint16]uint64, hostBefore uint64) fdpFilesPhase {
	t.Helper()
	var cs []string
	for c, ph := range classes {
		cs = append(cs, fmt.Sprintf("%s: %d", c, ph))
	}
	cfg := fmt.Sprintf(fdpFilesConfig, strings.Join(cs, ", "))
	h.Run(t, "kill $(pidof exporter) 2>/dev/null; sleep 1; mkdir -m 0700 -p /var/lib/walab-fs && cat > /etc/walab/fdp.yml <<'EOF'\n"+cfg+"EOF\n"+
		"setsid /walab/exporter --config.file=/etc/walab/fdp.yml --web.listen-address=:10131 </dev/null >/var/log/fdp-exporter.log 2>&1 &\n"+
		"i=0; until grep -q ' /data fuse.walabsim ' /proc/mounts; do i=$((i+1)); [ $i -lt 120 ] || { cat /var/log/fdp-exporter.log; exit 1; }; sleep 1; done")
	h.Run(t, "mariadb-install-db --no-defaults --user=root --datadir=/data/m --auth-root-authentication-method=normal --skip-test-db >/var/log/m-install.log 2>&1 || { tail -20 /var/log/m-install.log; exit 1; }")
	h.Run(t, fdpFilesMariaDB)
	h.Run(t, fdpFilesSQL+` -e "CREATE DATABASE w; USE w; CREATE TABLE w.t (id INT PRIMARY KEY AUTO_INCREMENT, v VARCHAR(200)) ENGINE=InnoDB;
		INSERT INTO w.t (v) SELECT REPEAT('x', 200) FROM seq_1_to_20000;"`)
	// A clean shutdown: nothing writes while both sides are read.
	h.Run(t, "mariadb-admin --no-defaults -S /run/m.sock -uroot shutdown; while pidof mariadbd >/dev/null; do sleep 1; done; sync")
	p := fdpFilesPhase{sent: map[string]map[uint16]float64{}, perHandle: map[uint16]uint64{}}
	m := parseMetrics(t, fdpFilesScrape(t, h))
	for _, mt := range m["walab_simfs_device_written_bytes_total"].GetMetric() {
		var class string
		var ph uint64
		for _, l := range mt.GetLabel() {
			switch l.GetName() {
			case "class":
				class = l.GetValue()
			case "handle":
				ph, _ = strconv.ParseUint(l.GetValue(), 10, 16)
			}
		}
		if p.sent[class] == nil {
			p.sent[class] = map[uint16]float64{}
		}
		p.sent[class][uint16(ph)] += mt.GetCounter().GetValue()
	}
	for _, mt := range m["walab_simfs_device_label_written_bytes_total"].GetMetric() {
		p.label += mt.GetCounter().GetValue()
	}
	after := fdpFilesRUAMW(t, h)
	for ph, w := range after {
		// A handle whose reclaim unit filled moved to a new one: its
		// bytes are known modulo the reclaim unit (requireOnHandles).
		p.perHandle[ph] = (ruhBefore[ph] + fdpFilesRU/fdpFilesLBA - w) % (fdpFilesRU / fdpFilesLBA) * fdpFilesLBA
	}
	p.hostBytes = fdpFilesHostBytes(t, h) - hostBefore
	t.Logf("policy %v: sent %v (label %v); the drive: per handle %v, host bytes %d", classes, p.sent, p.label, p.perHandle, p.hostBytes)
	return p
}

// requireOnHandles: each class the backend wrote went to the policy's
// handle (0 when the policy names none), the drive's per-handle bytes are
// those classes' bytes (handle 0 also the label; modulo the reclaim unit
// for a handle that filled one), and the drive's host bytes are exactly
// everything the backend sent.
func requireOnHandles(t *testing.T, p fdpFilesPhase, classes map[string]uint16) {
	want := map[uint16]uint64{0: uint64(p.label)}
	total := uint64(p.label)
	for class, byHandle := range p.sent {
		ph := classes[class]
		require.Len(t, byHandle, 1, "class %s on one handle: %v", class, byHandle)
		require.Contains(t, byHandle, ph, "class %s on handle %d", class, ph)
		want[ph] += uint64(byHandle[ph])
		total += uint64(byHandle[ph])
	}
	for _, class := range []string{"redo", "data", "system"} {
		require.NotZero(t, p.sent[class][classes[class]], "MariaDB wrote %s", class)
	}
	for ph := range p.perHandle {
		// Exact below a reclaim unit; past one (MariaDB's install writes
		// some 150 MB of Aria logs, class other, to handle 0), modulo it.
		require.Equal(t, want[ph]%fdpFilesRU, p.perHandle[ph], "handle %d: the drive's bytes are the classes' the policy put there (%d bytes sent)", ph, want[ph])
	}
	require.Equal(t, total, p.hostBytes, "the drive's host bytes are what the filesystem wrote to it")
}

// fdpFilesKill commits rows one by one (each acknowledged id logged off
// the mount), kills the filesystem's process with SIGKILL mid-stream,
// kills the stranded mariadbd, unmounts the dead mount, restarts both, and
// finds every acknowledged row.
func fdpFilesKill(t *testing.T, h *DBHostGuest) {
	h.Run(t, fdpFilesMariaDB)
	h.Run(t, "("+fdpFilesSQL+" -e 'CREATE TABLE w.k (id INT PRIMARY KEY) ENGINE=InnoDB' && i=1; while "+fdpFilesSQL+
		" -e \"INSERT INTO w.k VALUES ($i)\" 2>/dev/null; do echo $i >> /root/acked; i=$((i+1)); done) </dev/null >/dev/null 2>&1 &\n"+
		"i=0; until [ $(wc -l < /root/acked 2>/dev/null || echo 0) -ge 50 ]; do i=$((i+1)); [ $i -lt 300 ] || exit 1; sleep 1; done; kill -9 $(pidof exporter)")
	time.Sleep(3 * time.Second)
	out := strings.Fields(h.Run(t, "sleep 2; kill -9 $(pidof mariadbd) 2>/dev/null; sleep 1; umount -l /data; tail -1 /root/acked"))
	require.NotEmpty(t, out)
	acked := out[len(out)-1]
	h.Run(t, "setsid /walab/exporter --config.file=/etc/walab/fdp.yml --web.listen-address=:10131 </dev/null >>/var/log/fdp-exporter.log 2>&1 &\n"+
		"i=0; until grep -q ' /data fuse.walabsim ' /proc/mounts; do i=$((i+1)); [ $i -lt 120 ] || { tail -20 /var/log/fdp-exporter.log; exit 1; }; sleep 1; done")
	h.Run(t, fdpFilesMariaDB)
	got := strings.TrimSpace(h.Run(t, fdpFilesSQL+" -N -e 'SELECT COUNT(*), MAX(id) FROM w.k'"))
	f := strings.Fields(got)
	require.Len(t, f, 2, got)
	n, err := strconv.Atoi(f[0])
	require.NoError(t, err)
	last, err := strconv.Atoi(acked)
	require.NoError(t, err, "the last acknowledged id")
	require.GreaterOrEqual(t, last, 50, "the kill came after 50 acknowledged commits")
	t.Logf("acknowledged %d rows before the kill; %s after the restart", last, got)
	require.GreaterOrEqual(t, n, last, "every acknowledged commit survived the filesystem's kill")
}

func fdpFilesScrape(t *testing.T, h *DBHostGuest) []byte {
	t.Helper()
	resp, err := http.Get(h.ExporterURL() + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return b
}

// fdpFilesRUAMW is the drive's reclaim unit handle status of namespace 1
// (fdpctl, I/O Management Receive): available media writes by placement
// handle.
func fdpFilesRUAMW(t *testing.T, h *DBHostGuest) map[uint16]uint64 {
	t.Helper()
	b := fdpFilesRead(t, h, "/walab/fdpctl ruh-status -dev /dev/nvme0n1 -nsid 1 -len 4096 -out /tmp/ruhs.bin")
	s, err := decode.ParseRUHStatus(b)
	require.NoError(t, err)
	out := map[uint16]uint64{}
	for _, d := range s.Handles {
		out[d.PID] = d.RUAMW
	}
	require.Len(t, out, 5, "placement handles 0-4")
	return out
}

// fdpFilesHostBytes is the FDP statistics log's host bytes written.
func fdpFilesHostBytes(t *testing.T, h *DBHostGuest) uint64 {
	t.Helper()
	b := fdpFilesRead(t, h, "/walab/fdpctl log -dev /dev/nvme0 -lid 0x22 -lsi 1 -len 64 -out /tmp/log22.bin")
	st, err := decode.ParseFDPStats(b)
	require.NoError(t, err)
	return uint64(st.HostBytesWithMetadataWritten.Float64())
}

// fdpFilesRead runs an fdpctl command that writes /tmp/X.bin and returns
// the file's bytes.
func fdpFilesRead(t *testing.T, h *DBHostGuest, cmd string) []byte {
	t.Helper()
	out := cmd[strings.LastIndex(cmd, " ")+1:]
	b64 := h.Run(t, cmd+" && base64 -w0 "+out)
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	require.NoError(t, err)
	return b
}
