// Package promql owns walab's metric prefix, the names of the exporter's
// metrics that rules, dashboards and walab compare read back, and the
// PromQL expressions more than one of them builds. It is a leaf: it
// imports nothing of walab's, so the collectors that define the metrics
// and the programs that query them can all use it.
package promql

import "fmt"

// Prefix is every walab metric's namespace.
const Prefix = "walab"

// Names of exporter metrics read in PromQL by more than one consumer.
const (
	BlockdevWrittenBytes  = Prefix + "_blockdev_written_bytes_total"
	BlockdevMemberInfo    = Prefix + "_blockdev_member_info"
	BlockdevLeafInfo      = Prefix + "_blockdev_leaf_info"
	NVMeMediaWrittenBytes = Prefix + "_nvme_media_written_bytes_total"
	MDSyncActive          = Prefix + "_md_sync_active"
)

// ControllerNAND is fn (increase, rate, count_over_time, ...) of each
// NVMe controller's NAND byte counter over window, summed over its sources
// and labelled controller, the name walab_blockdev_leaf_info gives the
// controller at the bottom of a block stack.
func ControllerNAND(fn, window string) string {
	return fmt.Sprintf(`label_replace(sum without (source) (%s(%s[%s])), "controller", "$1", "device", "(.+)")`, fn, NVMeMediaWrittenBytes, window)
}

// LeafControllerNAND is ControllerNAND for the controllers that leafCtrls
// (a vector by instance, job and controller, such as a max by over
// walab_blockdev_leaf_info) selects: the NAND side of a RAID chain. A
// controller appears once however many of its partitions are leaves.
func LeafControllerNAND(leafCtrls, fn, window string) string {
	return fmt.Sprintf("%s * on (instance, job, controller) group_left () %s", leafCtrls, ControllerNAND(fn, window))
}

// MemberWritten is fn of each member's block byte counter over window,
// labelled with its array (by walab_blockdev_member_info, whose selector
// sel may name one array).
func MemberWritten(sel, fn, window string) string {
	return fmt.Sprintf("%s%s * on (instance, job, device) group_left () %s(%s[%s])", BlockdevMemberInfo, sel, fn, BlockdevWrittenBytes, window)
}
