package compare

// RunFacts is what Prometheus knows about a run besides its WA table. A
// nil pointer or empty string is "not in Prometheus".
type RunFacts struct {
	Serial, Firmware string
	// Simulated: the drive is the exporter's simulated drive
	// (walab_nvme_info simulated="true"): no filesystem, no block device,
	// and its write counts are the simulator's own.
	Simulated bool `json:",omitempty"`
	// Identities is the number of walab_nvme_info series (serial,
	// firmware, ...) the run's devices had, when more than one per device;
	// Serial and Firmware are then the first one's. 0 otherwise.
	Identities int `json:",omitempty"`
	// FillStart is the fullest configured filesystem (used / size) at the
	// run's start.
	FillStart *float64 `json:",omitempty"`
	// DriveTurns is NAND bytes the drive had written before the run,
	// divided by its capacity: a fresh drive (below 1) is not in the GC
	// steady state of a worn-in one.
	DriveTurns *float64 `json:",omitempty"`
	// Capacity is the drives' capacity in bytes at the run's start.
	Capacity *float64 `json:",omitempty"`
	// Placement is whether streams or FDP was enabled during the run,
	// inferred from the directive/FDP state the exporter reads (not proof
	// that writes carried a placement id).
	Placement *bool `json:",omitempty"`
	// FSServing is the lowest walab_simfs_serving of the run's devices
	// over the run: 1 when a filesystem fed the simulated drive the whole
	// run (a database's own writes, not the simulator's workload), 0 when
	// it stopped serving; nil without the series (a generator's drive).
	FSServing *float64 `json:",omitempty"`
	// PlacedShare is the share of the write bytes the kernel sent to the
	// drive with a stream id or placement handle over the compared rounds,
	// counted per command by the placement tracer
	// (walab_nvme_write_bytes_total); nil without tracer data.
	PlacedShare *float64 `json:",omitempty"`
	// NamespaceShare is the share of the compared rounds' write bytes, by
	// each namespace's own SMART log (walab_nvme_namespace_written_bytes_total),
	// that went to namespaces other than the busiest: about 0 when every
	// instance writes to one namespace, about half when one of two like
	// instances has its own; nil without per-namespace counters.
	NamespaceShare *float64 `json:",omitempty"`
	// Txn and NewOrder are committed transactions (all types; TPC-C New-Order)
	// in each compared round, in the order of the compared rounds.
	// A nil entry is a round without the counter.
	Txn, NewOrder []*float64 `json:",omitempty"`
	// TxnSource says where Txn comes from: TxnLoadgen (loadgen's committed
	// transactions) or TxnServer (the servers' COMMIT statements, for load
	// from another client); "" without either.
	TxnSource string `json:",omitempty"`
	// P95, P99: transaction latency quantiles over the compared rounds (s).
	P95, P99 *float64 `json:",omitempty"`
	// P95Rounds, P99Rounds: the same quantiles of each compared round (s),
	// in the order of the compared rounds; their intervals come from these.
	P95Rounds, P99Rounds []*float64 `json:",omitempty"`
	// Block is the device's namespaces' block-layer view over the compared
	// rounds (iostat's w/s, wMB/s, w_await, %util); nil fields are unknown.
	Block BlockView `json:",omitempty"`
	// Terminals and RateLimit are the load loadgen offered: its terminals
	// (most at once, summed over the run's targets) and its configured
	// transaction rate limit per second (0: unlimited); nil without
	// loadgen's series (load from another client).
	Terminals, RateLimit *float64 `json:",omitempty"`
	// MDSync is whether an md sync (resync, check, ...) of an array over
	// the drive ran during the compared rounds; nil: unknown (no blockdev
	// data); false also when the drive is under no md array.
	MDSync *bool `json:",omitempty"`
	// RAIDTheory is an md array's full-stripe WA (RAID 5 (2+1): 1.5); only
	// with Options.Array.
	RAIDTheory *float64 `json:",omitempty"`
	// RAIDLatency is the array's r_await and w_await against its slowest
	// member's over the performance rounds; only with Options.Array.
	RAIDLatency *RAIDLatency `json:",omitempty"`
	// Settings are the MySQL variables walab reads (walab_mysql_setting,
	// walab_mysql_setting_info) at the run's end, "target/name" -> value.
	Settings map[string]string `json:",omitempty"`
}

// Sources of RunFacts.Txn.
const (
	TxnLoadgen = "loadgen"
	TxnServer  = "server COMMITs"
)

// BlockView is a block device's iostat figures over a window.
type BlockView struct {
	WritesPerSec, WriteBytesPerSec, WriteAwaitSec, Util *float64 `json:",omitempty"`
}
