// Package promql owns walab's metric prefix, the names of the exporter's
// metrics that rules, dashboards and walab compare read back, and the
// PromQL expressions more than one of them builds. It is a leaf: it
// imports nothing of walab's, so the collectors that define the metrics
// and the programs that query them can all use it.
package promql

import (
	"fmt"
	"slices"
)

// Prefix is every walab metric's namespace.
const Prefix = "walab"

// Names of the metrics that rules, dashboards, walab compare, the
// experiment's checks and the fingerprint read back (Names lists them).
var (
	BlockdevDiscardedBytes   = name("blockdev_discarded_bytes_total")
	BlockdevInfo             = name("blockdev_info")
	BlockdevIOTime           = name("blockdev_io_time_seconds_total")
	BlockdevLeafInfo         = name("blockdev_leaf_info")
	BlockdevMemberInfo       = name("blockdev_member_info")
	BlockdevWriteTime        = name("blockdev_write_time_seconds_total")
	BlockdevWritesCompleted  = name("blockdev_writes_completed_total")
	BlockdevWrittenBytes     = name("blockdev_written_bytes_total")
	ExperimentRunInfo        = name("experiment_run_info")
	FilesystemSize           = name("filesystem_size_bytes")
	FilesystemUsed           = name("filesystem_used_bytes")
	LoadgenActiveTerminals   = name("loadgen_active_terminals")
	LoadgenRunInfo           = name("loadgen_run_info")
	LoadgenTargetRate        = name("loadgen_target_rate_per_second")
	LoadgenTransactions      = name("loadgen_transactions_total")
	LoadgenTxnDurationBucket = name("loadgen_transaction_duration_seconds_bucket")
	MDSyncActive             = name("md_sync_active")
	MDTheoreticalWA          = name("md_theoretical_write_amplification")
	MySQLCommands            = name("mysql_commands_total")
	MySQLSetting             = name("mysql_setting")
	MySQLSettingInfo         = name("mysql_setting_info")
	NVMeCapacity             = name("nvme_capacity_bytes")
	NVMeDirectiveEnabled     = name("nvme_directive_enabled")
	NVMeFDPEnabled           = name("nvme_fdp_enabled")
	NVMeFDPHandles           = name("nvme_fdp_reclaim_unit_handles")
	NVMeFDPHandlesUsed       = name("nvme_fdp_reclaim_unit_handles_used")
	NVMeFDPUnitSize          = name("nvme_fdp_reclaim_unit_size_bytes")
	NVMeHostWrittenBytes     = name("nvme_host_written_bytes_total")
	NVMeInfo                 = name("nvme_info")
	NVMeMediaWrittenBytes    = name("nvme_media_written_bytes_total")
	NVMeWALastSample         = name("nvme_wa_last_sample_timestamp_seconds")
	NVMeWriteAmplification   = name("nvme_write_amplification")
	NVMeWriteBytes           = name("nvme_write_bytes_total")
	PlacementDaemonRunning   = name("placement_daemon_running")
	PlacementHintsEffective  = name("placement_hints_effective")
)

var names []string

// name is Prefix_suffix, recorded for Names.
func name(suffix string) string {
	n := Prefix + "_" + suffix
	names = append(names, n)
	return n
}

// Names lists every metric name above, in their order: what the metrics
// contract test holds to docs/metrics.md.
func Names() []string { return slices.Clone(names) }

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
