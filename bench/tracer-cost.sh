#!/usr/bin/env bash
# The placement tracer's cost per write command: boots Debian's kernel in
# QEMU with an emulated NVMe controller (KVM when a guest boots under it,
# else TCG; the report names which), and in the guest times 4 KiB O_DIRECT
# writes at queue depth 1 and 32, alternating tracer off and on, then reads
# the BPF program's run count and run time from the kernel's statistics.
# Prints, per queue depth, the IOPS of each side, the on/off ratio (median
# and the range over the pairs) against the 1 % target, and the program's
# nanoseconds per run. See docs/placement-trace.md, "Cost".
#
# Under emulation the device, not the tracer, sets the pace and the shared
# machine adds noise: read the per-run figure before the ratio.
#
# Usage: bench/tracer-cost.sh   (PAIRS=5 SECS=3; the arms, 2 x (2 x PAIRS + 1) x SECS
# seconds, must fit in 80 s; WALAB_QEMU_ACCEL=tcg|kvm forces the accelerator)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
report=$(mktemp)
trap 'rm -f "$report"' EXIT
cd "$root"
WALAB_BENCH_TRACER=1 WALAB_BENCH_TRACER_PAIRS=${PAIRS:-5} WALAB_BENCH_TRACER_SECS=${SECS:-3} \
	WALAB_BENCH_TRACER_REPORT="$report" \
	go test -count=1 -timeout 15m -run '^TestQEMUTracerCost$' ./test/qemu/ >&2
cat "$report"
