package e2e

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/walab/walab/alerts"
	"github.com/walab/walab/internal/testenv"
)

// TestIostatRulesMatchSysstat: while a steady direct-I/O load runs on a
// loop device of its own (no other process touches it, so no one else's
// burst lands in one tool's window and not the other's), sysstat's
// `iostat -x` prints one 20 s interval and walab's iostat recording rules
// (rate window 20 s, scraped every second by a real Prometheus) are read at
// the instant iostat ends. Both read the same /proc/diskstats, so every
// column must agree within the misalignment of the two windows (under a
// second of a steady load).
func TestIostatRulesMatchSysstat(t *testing.T) {
	dir, bins := preamble(t, []string{"iostat", "prometheus"}, "exporter")
	iostat, promBin, exporterBin := bins["iostat"], bins["prometheus"], bins["exporter"]
	dev := loopDevice(t, filepath.Join(dir, "loop.img"), 256<<20)
	disk := filepath.Base(dev)

	writeFile(t, dir, "exporter.yml", fmt.Sprintf("blockdev:\n  devices: [%s]\n", disk))
	expAddr := addr(testenv.FreePort(t))
	exp := start(t, dir, "exporter", exporterBin, "--web.listen-address="+expAddr, "--config.file=exporter.yml",
		"--path.sysfs=/sys", "--no-collector.innodb")
	waitHTTP(t, exp, "http://"+expAddr+"/metrics", 60*time.Second)

	// The e2e rules with a 20 s rate window: a second of offset between the
	// two tools' windows is then 5%, not 10%.
	base, err := alerts.LoadConfig("../alerts/config.yml")
	require.NoError(t, err)
	cfg, err := alerts.Override(base, "testdata/rules-override.yml")
	require.NoError(t, err)
	cfg.RateWindow = "20s"
	rules, err := alerts.Generate(cfg).Marshal()
	require.NoError(t, err)
	writeFile(t, dir, "rules.yml", string(rules))
	_, papi := startPrometheus(t, dir, promBin, [2]string{"walab-exporter", expAddr})

	// The load: one writer (64 KiB direct writes, fsync every 64) on the
	// device's first half and one reader (16 KiB direct reads) on its second,
	// each paced to a steady rate, until the test ends.
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	loadErr := make(chan error, 2)
	go func() { loadErr <- directLoad(ctx, dev, true, 64<<10, 0) }()
	go func() { loadErr <- directLoad(ctx, dev, false, 16<<10, 128<<20) }()

	w, ok := alerts.Iostat("w/s")
	require.True(t, ok)
	eventually(t, 60*time.Second, "walab's w/s for "+disk, func() string {
		v, err := instant(papi, fmt.Sprintf(`%s{device=%q}`, w.Record, disk))
		if err != nil {
			return err.Error()
		}
		if len(v) != 1 || v[0].Value < 20 {
			return fmt.Sprintf("%v", v)
		}
		return ""
	})
	time.Sleep(5 * time.Second) // the rule's window now starts inside the load

	cmd := exec.Command(iostat, "-x", "-d", "-y", disk, "20", "1")
	cmd.Env = append(os.Environ(), "LC_ALL=C", "S_COLORS=never")
	out, err := cmd.Output()
	end := time.Now()
	require.NoError(t, err)
	select {
	case err := <-loadErr:
		t.Fatalf("load stopped: %v", err)
	default:
	}
	cols := parseIostat(t, string(out), disk)
	time.Sleep(2500 * time.Millisecond) // a scrape and a rule evaluation after `end`

	checked := map[string]bool{}
	for col, want := range cols {
		f, ok := alerts.Iostat(col)
		if !ok {
			t.Errorf("iostat column %q has no walab rule", col)
			continue
		}
		v, err := queryAt(papi, fmt.Sprintf(`%s{device=%q}`, f.Record, disk), end)
		require.NoError(t, err)
		if len(v) == 0 {
			// Absent is right only where iostat has nothing to average.
			require.Less(t, want, 0.005, "%s: iostat %v, walab has no value", col, want)
			continue
		}
		got := float64(v[0].Value) * f.Scale
		// The load's own columns (reads, writes, queue, utilisation) are
		// steady: 20%. Discards and flushes come mostly from the rest of
		// the machine, in bursts that a second of window offset shows: 50%.
		rel := 0.2
		if strings.HasPrefix(col, "d") || strings.HasPrefix(col, "f") || col == "%drqm" {
			rel = 0.5
		}
		tol := math.Max(rel*want, absTolerance(col))
		t.Logf("%-8s iostat %10.2f  walab %10.2f", col, want, got)
		require.InDelta(t, want, got, tol, "%s: iostat %v, walab %v", col, want, got)
		checked[col] = want > 0
	}
	// The comparison measured something: the load's own columns were busy.
	for _, col := range []string{"r/s", "rkB/s", "r_await", "rareq-sz", "w/s", "wkB/s", "w_await", "wareq-sz", "aqu-sz", "%util"} {
		require.True(t, checked[col], "column %s was idle (%v): the load did not reach %s", col, cols[col], disk)
	}
	// (No assertion on the load's own request sizes: the disk is shared
	// with the rest of the test run, whose I/O both tools see alike.)
}

// absTolerance is the smallest difference that counts, in iostat's units:
// iostat prints two decimals, and a column near zero is mostly noise of
// the machine's other processes.
func absTolerance(col string) float64 {
	switch {
	case strings.HasSuffix(col, "await"):
		return 0.05 // ms
	case col == "aqu-sz":
		return 0.05
	case col == "%util", strings.HasPrefix(col, "%"):
		return 2
	case strings.HasSuffix(col, "req-sz"):
		return 1 // kB
	default:
		return 2 // per second, kB/s
	}
}

// parseIostat reads `iostat -x -d -y <disk> N 1`: the header line starting
// with Device and the disk's line, column by header name.
func parseIostat(t *testing.T, out, disk string) map[string]float64 {
	t.Helper()
	var header []string
	cols := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) > 1 && strings.HasPrefix(f[0], "Device"):
			header = f
		case len(f) > 1 && f[0] == disk && header != nil:
			require.Len(t, f, len(header), "iostat line %q", sc.Text())
			for i := 1; i < len(f); i++ {
				v, err := strconv.ParseFloat(f[i], 64)
				require.NoError(t, err, "iostat column %s", header[i])
				cols[header[i]] = v
			}
		}
	}
	require.NotEmpty(t, cols, "no line for %s in iostat's output:\n%s", disk, out)
	return cols
}

// directLoad writes (or reads) 128 MiB of the device from base with
// O_DIRECT in blocks of size, from start to end and again, paced to about
// 2,000 requests a second, until ctx ends.
func directLoad(ctx context.Context, dev string, write bool, size int, base int64) error {
	const span = 128 << 20
	fd, err := unix.Open(dev, unix.O_RDWR|unix.O_DIRECT, 0)
	if err != nil {
		return fmt.Errorf("open %s with O_DIRECT: %w", dev, err)
	}
	defer unix.Close(fd)
	buf, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE) // page-aligned
	if err != nil {
		return err
	}
	defer unix.Munmap(buf)
	tick := time.NewTicker(500 * time.Microsecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		off := base + int64(i*size)%span
		if write {
			_, err = unix.Pwrite(fd, buf, off)
			if err == nil && i%64 == 63 {
				err = unix.Fsync(fd)
			}
		} else {
			_, err = unix.Pread(fd, buf, off)
		}
		if err != nil {
			return fmt.Errorf("%s at %d: %w", dev, off, err)
		}
	}
}

// loopDevice attaches a loop device over a new file of size bytes and
// detaches it when the test ends.
func loopDevice(t *testing.T, img string, size int64) string {
	t.Helper()
	losetup := testenv.RequireBinary(t, "losetup")
	require.NoError(t, os.WriteFile(img, nil, 0o644))
	require.NoError(t, os.Truncate(img, size))
	out, err := exec.Command(losetup, "-f", "--show", img).CombinedOutput()
	if err != nil {
		testenv.Missing(t, "losetup -f --show (root and /dev/loop-control needed): %v: %s", err, out)
	}
	dev := strings.TrimSpace(string(out))
	t.Cleanup(func() { _ = exec.Command(losetup, "-d", dev).Run() })
	return dev
}

func queryAt(papi v1.API, expr string, at time.Time) (model.Vector, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, _, _, err := papi.Query(ctx, expr, at)
	if err != nil {
		return nil, err
	}
	v, ok := res.(model.Vector)
	if !ok {
		return nil, fmt.Errorf("%s: %s, not a vector", expr, res.Type())
	}
	return v, nil
}
