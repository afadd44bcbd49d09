#!/usr/bin/env python3
"""The interval between repetitions on stored pipeline windows, A/A.

Reads the pairs files bench/verdict-error-rates.sh writes (one loadgen run
cut into windows, placement off, on, off, ...; the simulator's placement
does not change MariaDB's throughput, so for throughput every window is
an A). Puts the windows back in time order, cuts them into groups of six
consecutive ones, A B A B A B as a plan with cycles: 3 runs them, and gives
each group the report's between-repetitions interval: Welch's t on the log
of each window's mean TPS, 95 %, degrees of freedom rounded down (wider).
Prints each group and the share of groups called significant.

Usage: bench/verdict-cycles-aa.py PAIRS.tsv...
"""
import csv
import math
import statistics
import sys

# Student's t, two-sided 95 %, by whole degrees of freedom.
T975 = [None, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228]


def windows(path):
    rows = list(csv.DictReader(open(path), delimiter="\t"))
    aa = [r for r in rows if r["kind"] == "aa"]
    pl = [r for r in rows if r["kind"] == "placement"]
    off = [aa[0]["base_rounds_tps"]] + [r["cand_rounds_tps"] for r in aa]
    on = [r["cand_rounds_tps"] for r in pl]
    # Pair i of each kind starts at off window i: (off i, off i+1), (off i, on i).
    if len(off) != len(on) + 1 or any(r["base_rounds_tps"] != off[i] for i, r in enumerate(pl)):
        sys.exit(f"{path}: the windows are not off, on, off, ... as bench/verdict-error-rates.sh writes them")
    seq = []
    for i, w in enumerate(off):
        seq.append(w)
        if i < len(on):
            seq.append(on[i])
    return [statistics.mean(float(v) for v in w.split(",")) for w in seq]


def between(a, b):
    la, lb = [math.log(v) for v in a], [math.log(v) for v in b]
    d = statistics.mean(lb) - statistics.mean(la)
    va, vb = statistics.variance(la) / len(la), statistics.variance(lb) / len(lb)
    df = (va + vb) ** 2 / (va**2 / (len(la) - 1) + vb**2 / (len(lb) - 1))
    h = T975[min(10, max(1, math.floor(df)))] * math.sqrt(va + vb)
    return d, d - h, d + h, df


def main(paths):
    calls = groups = 0
    for path in paths:
        m = windows(path)
        print(f"{path}: {len(m)} windows, mean TPS " + " ".join(f"{v:.0f}" for v in m))
        for g in range(0, len(m) - 5, 6):
            d, lo, hi, df = between(m[g:g + 6:2], m[g + 1:g + 6:2])
            sig = lo > 0 or hi < 0
            calls, groups = calls + sig, groups + 1
            pct = [100 * (math.exp(x) - 1) for x in (d, lo, hi)]
            print(f"  windows {g}-{g + 5}: {pct[0]:+.1f}% [{pct[1]:+.1f}, {pct[2]:+.1f}] df {df:.1f}{'  significant' if sig else ''}")
    print(f"A/A between 3 repetitions: {calls} of {groups} groups significant")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
