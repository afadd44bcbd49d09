package hostfacts

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/walab/walab/internal/hostapi"
)

// MaxNICs bounds the interfaces whose channel counts are listed.
const MaxNICs = 16

// readTuning reads the tuning facts set by hand on a database host: the
// scheduler's STEAL feature and its node limit, the NICs' channel counts
// and the page cache size (seed 000), the sysctls and transparent huge
// pages (no seed sets them). Each is
// absent when its file is not there (no debugfs, a kernel without STEAL,
// a parameter not on the command line), never a default filled in.
func readTuning(o Options, f *hostapi.Facts, errf func(string, ...any)) {
	t := hostapi.Tuning{SchedSteal: schedSteal(o.SysFS)}
	if b, err := os.ReadFile(filepath.Join(o.ProcFS, "cmdline")); err == nil {
		t.StealNodeLimit = cmdlineParam(string(b), "sched_steal_node_limit")
	} else {
		errf("kernel command line: %v", err)
	}
	for _, k := range hostapi.Sysctls {
		b, err := os.ReadFile(filepath.Join(o.ProcFS, "sys", strings.ReplaceAll(k, ".", "/")))
		if err != nil {
			continue // not on this kernel
		}
		if t.Sysctls == nil {
			t.Sysctls = map[string]string{}
		}
		t.Sysctls[k] = strings.TrimSpace(string(b))
	}
	thp := filepath.Join(o.SysFS, "kernel/mm/transparent_hugepage")
	if b, err := os.ReadFile(filepath.Join(thp, "enabled")); err == nil {
		t.THPEnabled = activeScheduler(string(b))
	}
	if b, err := os.ReadFile(filepath.Join(thp, "defrag")); err == nil {
		t.THPDefrag = activeScheduler(string(b))
	}
	t.NICChannels = nicChannels(o, f)
	if b, err := os.ReadFile(filepath.Join(o.ProcFS, "meminfo")); err == nil {
		t.PageCacheBytes = meminfoBytes(b, "Cached")
	}
	f.Tuning = t
}

// schedSteal reads the STEAL scheduler feature from debugfs
// (sched/features since Linux 5.13, sched_features before): true when
// listed as STEAL, false as NO_STEAL, nil when the file is unreadable or
// the kernel has no such feature (it is a vendor patch).
func schedSteal(sysfs string) *bool {
	for _, p := range []string{"kernel/debug/sched/features", "kernel/debug/sched_features"} {
		b, err := os.ReadFile(filepath.Join(sysfs, p))
		if err != nil {
			continue
		}
		for _, w := range strings.Fields(string(b)) {
			switch w {
			case "STEAL", "NO_STEAL":
				on := w == "STEAL"
				return &on
			}
		}
		return nil
	}
	return nil
}

// cmdlineParam is name's value on the kernel command line ("" for a bare
// name), nil when it is not there; the last one wins, as the kernel reads it.
func cmdlineParam(cmdline, name string) *string {
	var v *string
	for _, w := range strings.Fields(cmdline) {
		k, val, _ := strings.Cut(w, "=")
		if k == name {
			v = &val
		}
	}
	return v
}

// nicChannels counts each NIC's receive and transmit queues in sysfs
// (queues/rx-N, tx-N): the channels `ethtool -L` sets (combined N gives N
// of each). The NICs are the irq: section's interfaces, or else every
// interface backed by a device (not lo, bridges, veths). Sysfs is chosen
// over the ETHTOOL_GCHANNELS ioctl: no socket, no capability, it works for
// an exporter in a container given the host's sysfs (--path.sysfs), and
// fixtures are files.
func nicChannels(o Options, f *hostapi.Facts) map[string]hostapi.Channels {
	names := o.Interfaces
	if len(names) == 0 {
		ents, err := os.ReadDir(filepath.Join(o.SysFS, "class/net"))
		if err != nil {
			return nil
		}
		for _, e := range ents {
			if _, err := os.Stat(filepath.Join(o.SysFS, "class/net", e.Name(), "device")); err == nil {
				names = append(names, e.Name())
			}
		}
		sort.Strings(names)
	}
	if len(names) > MaxNICs {
		names = names[:MaxNICs]
		f.Truncated = append(f.Truncated, "nic channels (at most "+strconv.Itoa(MaxNICs)+")")
	}
	var out map[string]hostapi.Channels
	for _, n := range names {
		ents, err := os.ReadDir(filepath.Join(o.SysFS, "class/net", n, "queues"))
		if err != nil {
			continue
		}
		var c hostapi.Channels
		for _, e := range ents {
			switch {
			case strings.HasPrefix(e.Name(), "rx-"):
				c.RX++
			case strings.HasPrefix(e.Name(), "tx-"):
				c.TX++
			}
		}
		if out == nil {
			out = map[string]hostapi.Channels{}
		}
		out[n] = c
	}
	return out
}

// meminfoBytes is a "Key: N kB" line of /proc/meminfo in bytes, nil when
// absent or malformed.
func meminfoBytes(b []byte, key string) *uint64 {
	for _, l := range strings.Split(string(b), "\n") {
		v, ok := strings.CutPrefix(l, key+":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) != 2 || f[1] != "kB" {
			return nil
		}
		n, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil || n >= 1<<53 {
			return nil
		}
		n <<= 10
		return &n
	}
	return nil
}
