//go:build linux

package qemu

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/alerts"
	"github.com/walab/walab/internal/blockdev"
	"github.com/walab/walab/internal/testenv"
)

// raidSteps builds seed 001's RAID 5 (2+1) over the three emulated
// namespaces through md's sysfs interface (Documentation/admin-guide/md.rst:
// new_array, then level, chunk, disks and each member's slot and size;
// metadata "none", so no superblock writes), with the resync throttled so a
// scrape sees it; then lets it finish, puts a dm-linear device over the
// array (test/qemu/dmlinear: the DM ioctls dmsetup uses), scrapes, writes
// 16 MiB of full stripes through the dm device (1 MiB direct writes; a
// stripe is 2 x 64 KiB) and scrapes again, copying /proc/diskstats beside
// each scrape.
const raidSteps = `ip link set lo up
echo 1000 > /proc/sys/dev/raid/speed_limit_min
echo 1000 > /proc/sys/dev/raid/speed_limit_max
mdcreate() {
	echo md0 > /sys/module/md_mod/parameters/new_array || return 1
	md=/sys/block/md0/md
	echo none > $md/metadata_version && echo raid5 > $md/level && echo 65536 > $md/chunk_size &&
		echo 2 > $md/layout && echo 3 > $md/raid_disks || return 1
	slot=0
	for n in nvme0n1 nvme1n1 nvme2n1; do
		cat /sys/block/$n/dev > $md/new_dev || return 1
		echo $slot > $md/dev-$n/slot && echo 0 > $md/dev-$n/offset && echo 65536 > $md/dev-$n/size || return 1
		slot=$((slot+1))
	done
	echo 65536 > $md/component_size && echo active > $md/array_state
}
step mdcreate mdcreate
cat /proc/mdstat > /out/mdstat-sync
/exporter --web.listen-address=127.0.0.1:10131 --no-collector.innodb --no-collector.irq > /out/serve.log 2>&1 &
pid=$!
step scrape_sync scrape metrics-sync.txt
echo 1000000 > /proc/sys/dev/raid/speed_limit_min
echo 2000000 > /proc/sys/dev/raid/speed_limit_max
waitidle() {
	i=0
	until [ "$(cat /sys/block/md0/md/sync_action)" = idle ]; do
		i=$((i+1)); [ $i -gt 1800 ] && return 1
		sleep 0.1
	done
}
step waitidle waitidle
cat /proc/mdstat > /out/mdstat-idle
step dmlinear /dmlinear -name walab-linear -dev $(cat /sys/block/md0/dev) -sectors $(cat /sys/block/md0/size)
waitdm() { i=0; until [ -b /dev/dm-0 ]; do i=$((i+1)); [ $i -gt 100 ] && return 1; sleep 0.1; done; }
step waitdm waitdm
step scrape1 scrape metrics1.txt
cp /proc/diskstats /out/diskstats1
step dd dd if=/dev/zero of=/dev/dm-0 bs=1M count=16 oflag=direct
step sync sync
cp /proc/diskstats /out/diskstats2
step scrape2 scrape metrics2.txt
kill $pid`

// TestQEMUMDRaid5 runs the blockdev collector on a real md RAID 5 of the
// kernel's md driver over three NVMe controllers: the resync shows while it
// runs, the topology (level, members, each leaf's controller, theory 1.5)
// is read from sysfs, and the array WA of full-stripe writes, from the
// exporter's counters and from walab's recording rule evaluated by promtool,
// equals the ratio of the kernel's own diskstats and lies near 1.5.
func TestQEMUMDRaid5(t *testing.T) {
	if testing.Short() {
		t.Skip("boots a VM (about a minute under TCG)")
	}
	out, _ := bootGuest(t, raidSteps,
		[]Controller{{Serial: "walabr001", DiskMiB: 64}, {Serial: "walabr002", DiskMiB: 64}, {Serial: "walabr003", DiskMiB: 64}},
		[]string{"nvme", "raid456", "dm_mod"}, []string{"crct10dif_generic", "crc64_rocksoft_generic", "crc32c_generic"}, "./dmlinear")
	requireSteps(t, out, "mdcreate", "scrape_sync", "waitidle", "dmlinear", "waitdm", "scrape1", "dd", "sync", "scrape2")
	t.Logf("mdstat during the resync:\n%s", mustRead(t, filepath.Join(out, "mdstat-sync")))

	t.Run("a resync shows while it runs", func(t *testing.T) {
		m := parseMetrics(t, mustRead(t, filepath.Join(out, "metrics-sync.txt")))
		require.Equal(t, 1.0, series(m["walab_md_sync_active"])["walab_md_sync_active{action=resync,device=md0}"])
		done := series(m["walab_md_sync_completed_ratio"])["walab_md_sync_completed_ratio{device=md0}"]
		require.Less(t, done, 1.0)
	})

	m1 := parseMetrics(t, mustRead(t, filepath.Join(out, "metrics1.txt")))
	m2 := parseMetrics(t, mustRead(t, filepath.Join(out, "metrics2.txt")))
	t.Run("topology from sysfs", func(t *testing.T) {
		require.Equal(t, 0.0, series(m2["walab_md_sync_active"])["walab_md_sync_active{action=idle,device=md0}"])
		require.Equal(t, 1.0, series(m2["walab_md_info"])["walab_md_info{device=md0,level=raid5}"])
		require.Equal(t, 1.5, series(m2["walab_md_theoretical_write_amplification"])["walab_md_theoretical_write_amplification{device=md0}"])
		require.Equal(t, 2.0, series(m2["walab_md_data_disks"])["walab_md_data_disks{device=md0}"])
		require.Equal(t, 65536.0, series(m2["walab_md_chunk_bytes"])["walab_md_chunk_bytes{device=md0}"])
		require.Equal(t, map[string]float64{
			"walab_blockdev_member_info{array=md0,device=nvme0n1}": 1,
			"walab_blockdev_member_info{array=md0,device=nvme1n1}": 1,
			"walab_blockdev_member_info{array=md0,device=nvme2n1}": 1,
			"walab_blockdev_member_info{array=dm-0,device=md0}":    1,
		}, series(m2["walab_blockdev_member_info"]))
		leaves := map[string]float64{}
		for _, a := range []string{"md0", "dm-0"} {
			for i := range 3 {
				leaves[fmt.Sprintf("walab_blockdev_leaf_info{array=%s,controller=nvme%d,device=nvme%dn1}", a, i, i)] = 1
			}
		}
		require.Equal(t, leaves, series(m2["walab_blockdev_leaf_info"]), "dm over md over NVMe: the namespaces at the bottom")
		require.Equal(t, 1.0, series(m2["walab_blockdev_info"])["walab_blockdev_info{controller=,device=dm-0,dm_name=walab-linear,kind=dm,parent=}"])
	})

	members := []string{"nvme0n1", "nvme1n1", "nvme2n1"}
	written := func(m map[string]float64, dev string) float64 {
		v, ok := m["walab_blockdev_written_bytes_total{device="+dev+"}"]
		require.True(t, ok, "no written bytes for %s", dev)
		return v
	}
	w1, w2 := series(m1["walab_blockdev_written_bytes_total"]), series(m2["walab_blockdev_written_bytes_total"])
	arrayDelta := written(w2, "md0") - written(w1, "md0")
	var memberDelta float64
	for _, d := range members {
		memberDelta += written(w2, d) - written(w1, d)
	}
	require.Equal(t, float64(16<<20), arrayDelta, "the array got the 16 MiB dd wrote")
	require.Equal(t, float64(16<<20), written(w2, "dm-0")-written(w1, "dm-0"), "through dm-linear, one to one")
	exporterWA := memberDelta / arrayDelta

	t.Run("array WA equals the kernel's diskstats ratio, near 1.5", func(t *testing.T) {
		d1, errs := blockdev.ParseDiskstats(mustRead(t, filepath.Join(out, "diskstats1")))
		require.Empty(t, errs)
		d2, errs := blockdev.ParseDiskstats(mustRead(t, filepath.Join(out, "diskstats2")))
		require.Empty(t, errs)
		sectors := func(ds []blockdev.Stat, dev string) float64 {
			for _, s := range ds {
				if s.Name == dev {
					return float64(s.WriteSectors)
				}
			}
			t.Fatalf("no diskstats line for %s", dev)
			return 0
		}
		var num float64
		for _, d := range members {
			num += sectors(d2, d) - sectors(d1, d)
		}
		kernelWA := num / (sectors(d2, "md0") - sectors(d1, "md0"))
		t.Logf("RAID 5 (2+1) full-stripe writes: exporter %.4f, kernel diskstats %.4f, theory 1.5", exporterWA, kernelWA)
		require.Equal(t, kernelWA, exporterWA)
		require.InDelta(t, 1.5, exporterWA, 0.02)
	})

	t.Run("the recording rule gives the same WA", func(t *testing.T) {
		promtoolRAIDWA(t, m1, m2, exporterWA)
	})
}

// promtoolRAIDWA evaluates walab's RAID WA rule with promtool on the two
// guest scrapes (one minute apart in the test's time) and checks it is want.
func promtoolRAIDWA(t *testing.T, m1, m2 map[string]*dto.MetricFamily, want float64) {
	t.Helper()
	promtool := testenv.RequireBinary(t, "promtool")
	dir := t.TempDir()
	rules, err := alerts.Generate(alerts.Default()).Marshal()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "rules.yml"), rules, 0o644))
	var in strings.Builder
	for _, fam := range []string{"walab_blockdev_written_bytes_total", "walab_blockdev_member_info"} {
		s1, s2 := series(m1[fam]), series(m2[fam])
		for k, v2 := range s2 {
			v1, ok := s1[k]
			require.True(t, ok, "%s only in the second scrape", k)
			fmt.Fprintf(&in, "      - series: '%s'\n        values: '%.17g %.17g'\n", promSelector(k), v1, v2)
		}
	}
	test := fmt.Sprintf(`rule_files: [rules.yml]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
%s    promql_expr_test:
      - expr: abs(%s{array="md0"} - %.17g) < bool 1e-9
        eval_time: 1m
        exp_samples:
          - labels: '{array="md0"}'
            value: 1
`, in.String(), alerts.RAIDWARate, want)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "raid_test.yml"), []byte(test), 0o644))
	cmd := exec.Command(promtool, "test", "rules", "raid_test.yml")
	cmd.Dir = dir
	outb, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s\n%s", outb, test)
}

// promSelector turns series()'s "name{a=b,c=d}" into a selector.
func promSelector(k string) string {
	name, labels, _ := strings.Cut(strings.TrimSuffix(k, "}"), "{")
	var ls []string
	for _, kv := range strings.Split(labels, ",") {
		if kv == "" {
			continue
		}
		a, b, _ := strings.Cut(kv, "=")
		ls = append(ls, fmt.Sprintf("%s=%q", a, b))
	}
	return name + "{" + strings.Join(ls, ",") + "}"
}
