package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/alerts"
	"github.com/walab/walab/internal/apiguard"
	"github.com/walab/walab/internal/lab"
	"github.com/walab/walab/internal/testenv"
)

const (
	simDevice = lab.Device
	// simCapacity is the simulated drive's size; "drive turns" below are
	// multiples of it.
	simCapacity = 256 << 20
	// simWindow is the e2e's short "hour" (testdata/rules-override.yml
	// wa_window) and the exporter's own WA window.
	simWindow = 20 * time.Second
)

// simExporterConfig is walab lab's small, fast simulated drive (256 MiB,
// 64 MiB/s × speed_up 8: two drive turns per real second, so the 20 s window
// spans ~40 turns while the fill, hence the steady WA, stays put).
const simExporterConfig = lab.ExporterConfig

// simState is the part of GET /api/v1/sim/placement the test reads.
type simState struct {
	Placement bool    `json:"placement"`
	HostBytes uint64  `json:"host_written_bytes"`
	WriteAmp  float64 `json:"write_amplification"`
	Fill      float64 `json:"fill_ratio"`
	LastError string  `json:"last_error"`
}

func getSimState(base string) (simState, error) {
	var st simState
	resp, err := http.Get(base + "/api/v1/sim/placement")
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return st, fmt.Errorf("GET placement: %s", resp.Status)
	}
	return st, json.NewDecoder(resp.Body).Decode(&st)
}

// TestLabSimulatedPlacement runs the lab on the exporter's simulated drive
// (no NVMe controller, no replay): with placement streams on, the hourly WA
// recording rule (over the e2e's 20 s "hour") settles at the streams level;
// switching placement off over the exporter's HTTP switch makes it rise by
// a clear margin, through the real exporter, Prometheus and walab's rules.
func TestLabSimulatedPlacement(t *testing.T) {
	dir, bins := preamble(t, []string{"prometheus"}, "exporter")
	promBin, exporterBin := bins["prometheus"], bins["exporter"]

	// Empty sysfs and devfs: no controller, so the exporter serves the simulator.
	writeFile(t, dir, "exporter.yml", simExporterConfig)
	exporterAddr := addr(testenv.FreePort(t))
	exp := start(t, dir, "exporter", exporterBin,
		"--web.listen-address="+exporterAddr,
		"--config.file=exporter.yml",
		"--path.sysfs="+t.TempDir(),
		"--path.devfs="+t.TempDir(),
		"--nvme.cache-max-age=500ms", // the test's "hour" is 20 s
		"--web.enable-mutations",     // the placement switch below
		"--collector.nvme",
		"--no-collector.filesystem",
		"--no-collector.innodb",
		"--no-collector.irq",
		"--no-collector.streams")
	base := "http://" + exporterAddr
	waitHTTP(t, exp, base+"/metrics", 60*time.Second)
	st, err := getSimState(base)
	require.NoError(t, err)
	require.True(t, st.Placement, "the sim: section starts with placement on")

	// Prometheus with the rules generated for the e2e's 20 s "hour".
	writeE2ERules(t, dir)
	_, papi := startPrometheus(t, dir, promBin, [2]string{"walab-exporter", exporterAddr})

	// The drive is labelled simulated and probed to the OCP 0xC0 NAND counter.
	infoQuery := fmt.Sprintf(`walab_nvme_info{device=%q,simulated="true",source="ocp_c0"}`, simDevice)
	eventually(t, 60*time.Second, "simulated walab_nvme_info in Prometheus", func() string {
		v, err := instant(papi, infoQuery)
		if err != nil {
			return err.Error()
		}
		if len(v) != 1 {
			return fmt.Sprintf("%d series for %s", len(v), infoQuery)
		}
		return ""
	})

	// The recording rule, not the exporter's gauge: over the rules' 20 s
	// "hour" it has a value within seconds, and it is the series the alerts
	// and dashboards use. The gauge (same window) is only logged beside it.
	waQuery := fmt.Sprintf(`%s{device=%q}`, alerts.WA1h, simDevice)
	gaugeQuery := fmt.Sprintf(`walab_nvme_write_amplification{device=%q,window="20s"}`, simDevice)
	readWA := func() (float64, string) {
		v, err := instant(papi, waQuery)
		if err != nil {
			return 0, err.Error()
		}
		if len(v) != 1 {
			return 0, fmt.Sprintf("%d series for %s", len(v), waQuery)
		}
		return float64(v[0].Value), ""
	}
	gauge := func() string {
		v, err := instant(papi, gaugeQuery)
		if err != nil || len(v) != 1 {
			return fmt.Sprintf("n/a (%v, %d series)", err, len(v))
		}
		return fmt.Sprintf("%.3f", float64(v[0].Value))
	}

	// settle waits until the drive has written `turns` capacities since
	// `from`, then for one more full window, so that the window holds only
	// steady-state traffic of the current placement setting.
	settle := func(what string, from uint64, turns uint64) {
		var st simState
		eventually(t, 90*time.Second, what, func() string {
			var err error
			if st, err = getSimState(base); err != nil {
				return err.Error()
			}
			if st.LastError != "" {
				return "sim: " + st.LastError
			}
			if done := st.HostBytes - from; done < turns*simCapacity {
				return fmt.Sprintf("%.1f of %d drive turns written", float64(done)/simCapacity, turns)
			}
			return ""
		})
		// Waiting, not asserting: the recording rule looks back one window.
		time.Sleep(simWindow + 3*time.Second)
	}

	// 1. Placement on: past the initial fill (prefilled sequentially, WA ~1
	// until GC starts) to the streams level.
	settle("warm-up with placement on", st.HostBytes, 8)
	var on float64
	eventually(t, 60*time.Second, "hourly WA with placement on", func() string {
		wa, msg := readWA()
		if msg != "" {
			return msg
		}
		if wa < 1 || wa > 5 {
			return fmt.Sprintf("WA %v is not a plausible steady value", wa)
		}
		on = wa
		return ""
	})
	st, err = getSimState(base)
	require.NoError(t, err)
	t.Logf("placement on: hourly WA %.3f (exporter 20s gauge %s), drive lifetime WA %.3f, fill %.3f, %.1f drive turns",
		on, gauge(), st.WriteAmp, st.Fill, float64(st.HostBytes)/simCapacity)

	// 2. Placement off over the exporter's switch: one open block for all
	// traffic, so hot and cold pages mix and GC relocates more.
	switched := time.Now()
	req, err := apiguard.NewPost(base + "/api/v1/sim/placement?streams=off")
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	st, err = getSimState(base)
	require.NoError(t, err)
	require.False(t, st.Placement, "placement switched off")

	want := on * 1.10
	var off float64
	eventually(t, 150*time.Second, "hourly WA above placement-on by 10%", func() string {
		wa, msg := readWA()
		if msg != "" {
			return msg
		}
		off = wa
		if wa <= want {
			return fmt.Sprintf("WA %.3f, want > %.3f (placement on %.3f)", wa, want, on)
		}
		return ""
	})
	t.Logf("placement off: hourly WA %.3f crossed +10%% after %s", off, time.Since(switched).Round(time.Second))
	// For the log only: the value once the window holds no placement-on traffic.
	if rest := simWindow + 3*time.Second - time.Since(switched); rest > 0 {
		time.Sleep(rest)
	}
	if wa, msg := readWA(); msg == "" {
		off = wa
	}
	st, err = getSimState(base)
	require.NoError(t, err)
	t.Logf("placement off, full window: hourly WA %.3f (+%.1f%%; exporter 20s gauge %s), drive lifetime WA %.3f, fill %.3f, %.1f drive turns",
		off, 100*(off/on-1), gauge(), st.WriteAmp, st.Fill, float64(st.HostBytes)/simCapacity)
}
