package alerts

import (
	"fmt"

	"github.com/walab/walab/internal/promql"
)

// Seed 001's RAID chain, per array (md or dm device; label `array`): the
// members' block writes per array write (RAID WA: 1.518 in the seed against
// 1.5 in theory for RAID 5 (2+1)), the software's share over theory
// ((1.518-1.5)/1.518 = 1.19%), and NAND bytes of the leaves' controllers per
// array write (the whole chain's WA). Each is absent, not skewed, when a
// member or a leaf controller has no data in the window, or when an md sync
// (resync, check, ...) ran in it: it writes the members by itself.
const (
	ArrayWrittenIncrease1h = "array:walab_blockdev_written_bytes:increase1h"
	ArrayMemberIncrease1h  = "array:walab_blockdev_member_written_bytes:sum_increase1h"
	ArrayNANDIncrease1h    = "array:walab_nvme_media_written_bytes:sum_increase1h"
	RAIDWA1h               = "array:walab_raid_write_amplification:ratio_increase1h"
	RAIDTheoretical        = "array:walab_raid_write_amplification:theoretical"
	RAIDOverhead1h         = "array:walab_raid_software_overhead:ratio_increase1h"
	RAIDNANDWA1h           = "array:walab_raid_nand_write_amplification:ratio_increase1h"
	RAIDWARate             = "array:walab_raid_write_amplification:ratio_rate5m"
	ArrayWrittenRate       = "array:walab_blockdev_written_bytes:rate5m"
	ArrayMemberWrittenRate = "array:walab_blockdev_member_written_bytes:sum_rate5m"
	ArrayNANDRate          = "array:walab_nvme_media_written_bytes:sum_rate5m"
	RAIDNANDWARate         = "array:walab_raid_nand_write_amplification:ratio_rate5m"
	RAIDSyncInWindow       = "array:walab_md_sync_active:max1h"
)

// RAIDLatency is seed 001's latency overhead of the RAID software for one
// request kind: the array's average time per request (iostat's r_await or
// w_await of the md or dm device) against its slowest member's, over the
// rate window: seed 001 reads the time its RAID software adds to reads and
// to writes over the NVMe drive with the highest average latency.
type RAIDLatency struct {
	Op        string // read or write
	Array     string // the array's await, seconds per request
	MaxMember string // the slowest member's await
	Overhead  string // Array - MaxMember
}

// RAIDLatencies are the read and write overheads, in iostat's order.
var RAIDLatencies = []RAIDLatency{raidLatency("read"), raidLatency("write")}

func raidLatency(op string) RAIDLatency {
	return RAIDLatency{
		Op:        op,
		Array:     "array:walab_blockdev_" + op + "_await_seconds:rate5m",
		MaxMember: "array:walab_blockdev_member_" + op + "_await_seconds:max_rate5m",
		Overhead:  "array:walab_raid_" + op + "_latency_overhead_seconds:rate5m",
	}
}

// rules: the array's await (arrays only), the slowest member's (complete
// or absent: a member without such a request in the window has no await,
// and the maximum over the others would not be the slowest), and the
// difference.
func (l RAIDLatency) rules() []Rule {
	f, _ := Iostat(l.Op[:1] + "_await")
	arrays := "max by (instance, job, array) (walab_blockdev_member_info)"
	perMember := "walab_blockdev_member_info * on (instance, job, device) group_left () " + f.Record
	return []Rule{
		rec(l.Array, fmt.Sprintf("max by (instance, job, array) (%s) and on (instance, job, array) %s", arrayOf(f.Record), arrays)),
		rec(l.MaxMember, fmt.Sprintf("max by (instance, job, array) (%[1]s) and on (instance, job, array) (count by (instance, job, array) (%[1]s) == count by (instance, job, array) (walab_blockdev_member_info))", perMember)),
		rec(l.Overhead, l.Array+" - on (instance, job, array) "+l.MaxMember),
	}
}

// arrayOf gives a per-device expression the label array = device.
func arrayOf(expr string) string {
	return fmt.Sprintf(`label_replace(%s, "array", "$1", "device", "(.+)")`, expr)
}

// raidExprs are the three sums over one window (an increase or a rate of
// the counters), each complete or absent.
func raidExprs(fn, window string) (array, members, nand string) {
	written := fmt.Sprintf("%s("+promql.BlockdevWrittenBytes+"[%s])", fn, window)
	// Array writes: devices that have members.
	array = fmt.Sprintf("sum by (instance, job, array) (%s and on (instance, job, array) "+promql.BlockdevMemberInfo+")", arrayOf(written))
	perMember := promql.MemberWritten("", fn, window)
	members = fmt.Sprintf("sum by (instance, job, array) (%[1]s) and on (instance, job, array) (count by (instance, job, array) (%[1]s) == count by (instance, job, array) ("+promql.BlockdevMemberInfo+"))", perMember)
	// One controller counts once per array even when two of its partitions are leaves.
	leafCtrls := `max by (instance, job, array, controller) (` + promql.BlockdevLeafInfo + `)`
	perCtrl := promql.LeafControllerNAND(leafCtrls, fn, window)
	nand = fmt.Sprintf("sum by (instance, job, array) (%[1]s) and on (instance, job, array) (count by (instance, job, array) (%[1]s) == count by (instance, job, array) (%[2]s))", perCtrl, leafCtrls)
	return array, members, nand
}

func raidRules(c Config) []Rule {
	a1h, m1h, n1h := raidExprs("increase", c.WAWindow)
	ar, mr, nr := raidExprs("rate", c.RateWindow)
	noSync := " unless on (instance, job, array) (" + RAIDSyncInWindow + " > 0)"
	return []Rule{
		rec(RAIDSyncInWindow, fmt.Sprintf("max by (instance, job, array) (%s)", arrayOf(fmt.Sprintf("max_over_time("+promql.MDSyncActive+"[%s])", c.WAWindow)))),
		rec(ArrayWrittenIncrease1h, a1h),
		rec(ArrayMemberIncrease1h, m1h),
		rec(ArrayNANDIncrease1h, n1h),
		rec(RAIDWA1h, "("+ArrayMemberIncrease1h+" / ("+ArrayWrittenIncrease1h+" > 0))"+noSync),
		rec(RAIDTheoretical, "max by (instance, job, array) ("+arrayOf(promql.MDTheoreticalWA)+")"),
		// (WA - theory) / WA: seed 001's (1.518 - 1.5) / 1.518 = 1.19%.
		rec(RAIDOverhead1h, "1 - "+RAIDTheoretical+" / "+RAIDWA1h),
		rec(RAIDNANDWA1h, "("+ArrayNANDIncrease1h+" / ("+ArrayWrittenIncrease1h+" > 0))"+noSync),
		rec(ArrayWrittenRate, ar),
		rec(ArrayMemberWrittenRate, mr),
		rec(ArrayNANDRate, nr),
		rec(RAIDWARate, ArrayMemberWrittenRate+" / ("+ArrayWrittenRate+" > 0)"),
		rec(RAIDNANDWARate, ArrayNANDRate+" / ("+ArrayWrittenRate+" > 0)"),
	}
}

// raidLatencyRules: seed 001's latency overhead, read and write.
func raidLatencyRules() []Rule {
	var rs []Rule
	for _, l := range RAIDLatencies {
		rs = append(rs, l.rules()...)
	}
	return rs
}

func raidAlerts(c Config) []Rule {
	return []Rule{
		c.alert("WalabRAIDSyncInWindow", "warning",
			"max by (instance, job, device, action) ("+promql.MDSyncActive+") == 1", "0m",
			"An md sync runs during the measurement.",
			fmt.Sprintf("Array {{ $labels.device }} on {{ $labels.instance }} runs a {{ $labels.action }}: it reads and writes the members by itself, so RAID and NAND WA over the %s windows it overlaps are left out (not skewed). Debian's mdadm runs a monthly check (checkarray); stop it or wait before measuring.", c.WAWindow)),
		c.alert("WalabRAIDDegraded", "warning",
			promql.MDDegradedDisks+" > 0", c.DefaultFor,
			"An md array runs degraded.",
			"Array {{ $labels.device }} on {{ $labels.instance }} misses {{ $value }} member(s): its writes and RAID WA are not those of the complete array."),
	}
}
