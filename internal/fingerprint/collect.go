package fingerprint

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/walab/walab/internal/innodb"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"golang.org/x/sys/unix"
)

// MySQLVariables are the variables a fingerprint records: the ones the
// exporter reports as walab_mysql_setting (one list, innodb.SeedVariables).
var MySQLVariables = innodb.SeedVariables

// QueryMySQL reads an instance's version and MySQLVariables (the ones the
// server has; MariaDB lacks some of MySQL's and the other way round).
func QueryMySQL(ctx context.Context, target, dsn string) MySQL {
	m := MySQL{Target: target}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		m.Error = err.Error()
		return m
	}
	defer db.Close()
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&m.Version); err != nil {
		m.Error = err.Error()
		return m
	}
	rows, err := db.QueryContext(ctx, innodb.VariablesQuery(MySQLVariables))
	if err != nil {
		m.Error = err.Error()
		return m
	}
	defer rows.Close()
	m.Variables = map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			m.Error = err.Error()
			return m
		}
		m.Variables[strings.ToLower(k)] = v
	}
	if err := rows.Err(); err != nil {
		m.Error = err.Error()
	}
	return m
}

// Families are one scrape of an exporter's /metrics.
type Families map[string]*dto.MetricFamily

const maxScrape = 64 << 20

// Scrape reads and parses a /metrics page (text format).
func Scrape(ctx context.Context, client *http.Client, url string) (Families, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(io.LimitReader(resp.Body, maxScrape))
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", url, err)
	}
	return fams, nil
}

// Sample is one series of a scrape: its labels and value.
type Sample struct {
	Labels map[string]string
	Value  float64
}

// All returns every sample of name whose labels include match.
func (f Families) All(name string, match map[string]string) []Sample {
	mf := f[name]
	if mf == nil {
		return nil
	}
	var out []Sample
next:
	for _, m := range mf.Metric {
		ls := map[string]string{}
		for _, lp := range m.Label {
			ls[lp.GetName()] = lp.GetValue()
		}
		for k, want := range match {
			if ls[k] != want {
				continue next
			}
		}
		s := Sample{Labels: ls}
		switch {
		case m.Gauge != nil:
			s.Value = m.Gauge.GetValue()
		case m.Counter != nil:
			s.Value = m.Counter.GetValue()
		case m.Untyped != nil:
			s.Value = m.Untyped.GetValue()
		default:
			continue
		}
		out = append(out, s)
	}
	return out
}

// Get returns the first sample of name whose labels include match; ok is
// false when there is none.
func (f Families) Get(name string, match map[string]string) (v float64, labels map[string]string, ok bool) {
	if all := f.All(name, match); len(all) > 0 {
		return all[0].Value, all[0].Labels, true
	}
	return 0, nil, false
}

func ptr[T any](v T) *T { return &v }

// SimPath is the simulated drive's placement endpoint on the exporter.
const SimPath = "/api/v1/sim/placement"

// SimState is the part of the simulator's state a fingerprint records.
type SimState struct {
	Placement bool    `json:"placement"`
	Fill      float64 `json:"fill_ratio"`
	LastError string  `json:"last_error"`
}

// GetSim reads the simulated drive's state from the exporter.
func GetSim(ctx context.Context, client *http.Client, base string) (SimState, error) {
	var st SimState
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+SimPath, nil)
	if err != nil {
		return st, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return st, fmt.Errorf("GET %s: %s", SimPath, resp.Status)
	}
	return st, json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&st)
}

// ReadDrive builds the drive part from the exporter at base (its /metrics,
// and the simulator's state when the drive is simulated).
func ReadDrive(ctx context.Context, client *http.Client, base, device string) (*Drive, error) {
	fams, err := Scrape(ctx, client, base+"/metrics")
	if err != nil {
		return nil, err
	}
	dev := map[string]string{"device": device}
	_, info, ok := fams.Get("walab_nvme_info", dev)
	if !ok {
		return nil, fmt.Errorf("exporter %s has no walab_nvme_info for device %q", base, device)
	}
	d := &Drive{Device: device, Model: info["model"], Serial: info["serial"], Firmware: info["firmware"],
		Source: info["source"], Simulated: info["simulated"] == "true"}
	get := func(name string, match map[string]string) *float64 {
		if v, _, ok := fams.Get(name, match); ok {
			return ptr(v)
		}
		return nil
	}
	d.CapacityBytes = get("walab_nvme_capacity_bytes", dev)
	d.HostWrittenBytes = get("walab_nvme_host_written_bytes_total", dev)
	d.MediaWrittenBytes = get("walab_nvme_media_written_bytes_total", dev)
	d.WA1h = get("walab_nvme_write_amplification", map[string]string{"device": device, "window": "1h"})
	for _, s := range fams.All("walab_nvme_directive_enabled", dev) {
		if d.Directives == nil {
			d.Directives = map[string]bool{}
		}
		d.Directives[s.Labels["directive"]] = s.Value == 1
	}
	if v := get("walab_nvme_fdp_enabled", dev); v != nil {
		d.FDP = ptr(*v == 1)
	}
	for _, s := range fams.All("walab_placement_daemon_running", nil) {
		if d.Daemons == nil {
			d.Daemons = map[string]bool{}
		}
		d.Daemons[s.Labels["daemon"]] = s.Value == 1
	}
	if d.Simulated {
		st, err := GetSim(ctx, client, base)
		if err != nil {
			return d, fmt.Errorf("simulated drive state: %w", err)
		}
		d.SimPlacement = ptr(st.Placement)
		d.Fill = ptr(st.Fill)
	}
	return d, nil
}

// ReadHost reads the host's side; paths are the data directories whose
// filesystems and block devices are recorded. Errors name what was not read.
func ReadHost(paths []string) (Host, []string) {
	var h Host
	var errs []string
	h.Hostname, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	} else {
		errs = append(errs, "kernel: "+err.Error())
	}
	if b, err := os.ReadFile("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"); err == nil {
		h.Governor = strings.TrimSpace(string(b))
	} // no cpufreq (VMs, containers): absent
	if running, err := ProcessRunning("irqbalance"); err == nil {
		h.Irqbalance = ptr(running)
	} else {
		errs = append(errs, "irqbalance: "+err.Error())
	}
	for _, p := range paths {
		m, err := MountOf(p)
		if err != nil {
			errs = append(errs, fmt.Sprintf("mount of %s: %v", p, err))
			continue
		}
		h.Mounts = append(h.Mounts, m)
		if m.Block != "" {
			disk := diskOf(m.Block)
			if b, err := os.ReadFile(filepath.Join("/sys/block", disk, "queue/scheduler")); err == nil {
				if h.Schedulers == nil {
					h.Schedulers = map[string]string{}
				}
				h.Schedulers[disk] = activeScheduler(string(b))
			}
		}
	}
	return h, errs
}

// activeScheduler picks "mq-deadline" out of "[mq-deadline] kyber none".
func activeScheduler(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '['); i >= 0 {
		if j := strings.IndexByte(s[i:], ']'); j > 0 {
			return s[i+1 : i+j]
		}
	}
	return s
}

// ProcessRunning reports whether a process with this command name runs.
func ProcessRunning(comm string) (bool, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return false, err
	}
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		if err == nil && strings.TrimSpace(string(b)) == comm {
			return true, nil
		}
	}
	return false, nil
}

// MountOf finds the filesystem holding path (the mountinfo entry with the
// path's device number) and its backing block device, if any.
func MountOf(path string) (Mount, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return Mount{}, err
	}
	maj, min := unix.Major(st.Dev), unix.Minor(st.Dev)
	m := Mount{Path: path, Device: fmt.Sprintf("%d:%d", maj, min)}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return m, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	best := -1
	for sc.Scan() {
		// id parent maj:min root mountpoint options ... - fstype source superoptions
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, x := range fields {
			if x == "-" {
				sep = i
				break
			}
		}
		if len(fields) < 6 || sep < 0 || sep+2 >= len(fields) || fields[2] != m.Device {
			continue
		}
		mp := unescapeMount(fields[4])
		if !within(path, mp) || len(mp) < best {
			continue
		}
		best = len(mp)
		m.FSType, m.Source, m.Options = fields[sep+1], fields[sep+2], fields[5]
	}
	if best < 0 {
		return m, fmt.Errorf("device %s not in /proc/self/mountinfo", m.Device)
	}
	if link, err := os.Readlink(fmt.Sprintf("/sys/dev/block/%d:%d", maj, min)); err == nil {
		m.Block = filepath.Base(link)
	}
	return m, sc.Err()
}

func within(path, mountpoint string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return mountpoint == "/" || abs == mountpoint || strings.HasPrefix(abs, mountpoint+"/")
}

func unescapeMount(s string) string {
	r := strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`)
	return r.Replace(s)
}

// diskOf maps a partition (nvme0n1p2, sda1) to its disk through sysfs.
func diskOf(block string) string {
	if _, err := os.Stat(filepath.Join("/sys/class/block", block, "partition")); err == nil {
		if link, err := filepath.EvalSymlinks(filepath.Join("/sys/class/block", block)); err == nil {
			return filepath.Base(filepath.Dir(link))
		}
	}
	return block
}

// Controller is the NVMe controller name of a block device (nvme0n1 →
// nvme0), following partitions; "" for a device that is not NVMe.
func Controller(block string) string {
	disk := diskOf(block)
	if !strings.HasPrefix(disk, "nvme") {
		return ""
	}
	if i := strings.IndexByte(disk[4:], 'n'); i > 0 {
		return disk[:4+i]
	}
	return disk
}

// Slaves lists the devices under a device-mapper or md device (dm-0 →
// nvme0n1), so a data directory on LVM or RAID is traced to its drives.
func Slaves(block string) []string {
	ents, err := os.ReadDir(filepath.Join("/sys/class/block", diskOf(block), "slaves"))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}
