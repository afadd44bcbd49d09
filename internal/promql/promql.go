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
// experiment's checks and the fingerprint read back (Names lists them);
// the collectors, the WA sampler and loadgen define those metrics with
// these names (exporter's TestReadBackNamesAreExposed holds both sides).
var (
	BlockdevDiscardTime          = name("blockdev_discard_time_seconds_total")
	BlockdevDiscardedBytes       = name("blockdev_discarded_bytes_total")
	BlockdevDiscardsCompleted    = name("blockdev_discards_completed_total")
	BlockdevDiscardsMerged       = name("blockdev_discards_merged_total")
	BlockdevFlushTime            = name("blockdev_flush_time_seconds_total")
	BlockdevFlushesCompleted     = name("blockdev_flushes_completed_total")
	BlockdevIOSizeBucket         = name("blockdev_io_size_bytes_bucket")
	BlockdevIOTime               = name("blockdev_io_time_seconds_total")
	BlockdevIOTimeWeighted       = name("blockdev_io_time_weighted_seconds_total")
	BlockdevInfo                 = name("blockdev_info")
	BlockdevLeafInfo             = name("blockdev_leaf_info")
	BlockdevMemberInfo           = name("blockdev_member_info")
	BlockdevReadBytes            = name("blockdev_read_bytes_total")
	BlockdevReadTime             = name("blockdev_read_time_seconds_total")
	BlockdevReadsCompleted       = name("blockdev_reads_completed_total")
	BlockdevReadsMerged          = name("blockdev_reads_merged_total")
	BlockdevWriteTime            = name("blockdev_write_time_seconds_total")
	BlockdevWritesCompleted      = name("blockdev_writes_completed_total")
	BlockdevWritesMerged         = name("blockdev_writes_merged_total")
	BlockdevWrittenBytes         = name("blockdev_written_bytes_total")
	CPUSeconds                   = name("cpu_seconds_total")
	ExperimentRunInfo            = name("experiment_run_info")
	FilesystemSize               = name("filesystem_size_bytes")
	FilesystemUsed               = name("filesystem_used_bytes")
	IRQBusiestCPUShare           = name("irq_busiest_cpu_share_ratio")
	IRQOffNUMANode               = name("irq_off_numa_node")
	InnoDBCheckpointAge          = name("innodb_checkpoint_age_bytes")
	InnoDBDataWrittenBytes       = name("innodb_data_written_bytes_total")
	InnoDBLogCapacity            = name("innodb_log_capacity_bytes")
	InnoDBOSLogWrittenBytes      = name("innodb_os_log_written_bytes_total")
	LoadgenActiveTerminals       = name("loadgen_active_terminals")
	LoadgenRunInfo               = name("loadgen_run_info")
	LoadgenTargetRate            = name("loadgen_target_rate_per_second")
	LoadgenTransactions          = name("loadgen_transactions_total")
	LoadgenTxnDurationBucket     = name("loadgen_transaction_duration_seconds_bucket")
	MDDegradedDisks              = name("md_degraded_disks")
	MDSyncActive                 = name("md_sync_active")
	MDTheoreticalWA              = name("md_theoretical_write_amplification")
	MySQLCommands                = name("mysql_commands_total")
	MySQLSetting                 = name("mysql_setting")
	MySQLSettingInfo             = name("mysql_setting_info")
	MySQLUp                      = name("mysql_up")
	NVMeCapacity                 = name("nvme_capacity_bytes")
	NVMeDirectiveEnabled         = name("nvme_directive_enabled")
	NVMeFDPEnabled               = name("nvme_fdp_enabled")
	NVMeFDPHandles               = name("nvme_fdp_reclaim_unit_handles")
	NVMeFDPHandlesUsed           = name("nvme_fdp_reclaim_unit_handles_used")
	NVMeFDPNamespaceHandleEvents = name("nvme_fdp_namespace_handle_events")
	NVMeFDPUnitSize              = name("nvme_fdp_reclaim_unit_size_bytes")
	NVMeHostWrittenBytes         = name("nvme_host_written_bytes_total")
	NVMeRunStart                 = name("nvme_run_start_timestamp_seconds")
	NVMeInfo                     = name("nvme_info")
	NVMeMediaWrittenBytes        = name("nvme_media_written_bytes_total")
	NVMeNamespaceWrittenBytes    = name("nvme_namespace_written_bytes_total")
	NVMePercentageUsed           = name("nvme_percentage_used_ratio")
	NVMeSourceErrors             = name("nvme_source_errors_total")
	NVMeSourceUp                 = name("nvme_source_up")
	NVMeWALastSample             = name("nvme_wa_last_sample_timestamp_seconds")
	NVMeWriteAmplification       = name("nvme_write_amplification")
	NVMeWriteBytes               = name("nvme_write_bytes_total")
	PlacementDaemonRunning       = name("placement_daemon_running")
	PlacementHintsEffective      = name("placement_hints_effective")
	ProfileFunctionSamples       = name("profile_function_samples_total")
	ProfileSamples               = name("profile_samples_total")
	SimFSDeviceInfo              = name("simfs_device_info")
	SimFSDeviceWrittenBytes      = name("simfs_device_written_bytes_total")
	SimFSFsyncs                  = name("simfs_fsyncs_total")
	SimFSHostWrittenBytes        = name("simfs_host_written_bytes_total")
	SimFSServing                 = name("simfs_serving")
	SimFSTrimmedBytes            = name("simfs_trimmed_bytes_total")
	SimFSWrites                  = name("simfs_writes_total")
	SimFSWrittenBytes            = name("simfs_written_bytes_total")
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
