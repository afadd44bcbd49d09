package compare

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/prometheus/common/model"

	"github.com/walab/walab/internal/promql"
)

// ArrayTable is Table over an md/dm array's chain (seed 001): per round,
// HostBytes is what the filesystem wrote to the array, MemberBytes the sum
// over its members' block writes (data and parity or copies), NANDBytes
// what the NVMe controllers at the bottom of its stack wrote to NAND. So
// WA() is the whole chain's, array to NAND, and RAIDWA() the RAID layer's.
// A round is Missing when an md sync (resync, check, ...) ran in it, when a
// member or a controller has no data, or when a leaf is no NVMe namespace.
func (s Source) ArrayTable(ctx context.Context, run Run, array string, round time.Duration) ([]Hour, error) {
	r, err := namedRounds("array", array, run, round)
	if err != nil {
		return nil, err
	}
	first, rs := r.Start, model.Duration(round).String()
	q, err := s.arrayRounds(ctx, array, rs, r)
	if err != nil {
		return nil, err
	}
	var hours []Hour
	seen := false
	for at := first; !at.After(run.End); at = at.Add(round) {
		k, h := roundAt(run, at, round)
		av, aok := q.arrayBytes[k]
		seen = seen || aok
		mv, mok := q.memberBytes[k]
		nv, nok := q.nandBytes[k]
		switch {
		case !aok:
			h.Missing = "no array counter: exporter or Prometheus not scraping"
		case q.sync[k] > 0:
			h.Missing = "an md sync (resync, check, recovery) ran in the round"
		case !mok || q.members[k] < q.membersExpected[k]:
			h.Missing = fmt.Sprintf("block data for %.0f of %.0f members", q.members[k], q.membersExpected[k])
		case q.leavesWithoutNAND[k] > 0:
			h.Missing = "a member at the bottom of the stack is no NVMe namespace: no NAND total"
		case !nok || q.controllers[k] < q.controllersExpected[k]:
			h.Missing = fmt.Sprintf("NAND data for %.0f of %.0f controllers", q.controllers[k], q.controllersExpected[k])
		case q.nonFinite(k) != "":
			h.Missing = q.nonFinite(k)
		default:
			lo, hi := min(q.arraySamples[k], q.nandSamplesMin[k]), max(q.arraySamples[k], q.nandSamplesMax[k])
			if hi > 0 && lo < Coverage*hi {
				h.Missing = fmt.Sprintf("a counter sampled for %.0f%% of the round", 100*lo/hi)
			} else {
				h.HostBytes, h.MemberBytes, h.NANDBytes = av, mv, nv
			}
		}
		hours = append(hours, h)
	}
	if !seen {
		return nil, fmt.Errorf("run %s: no block counters for array %s (is the blockdev collector on, and %s among its devices?)", run.ID, array, array)
	}
	return hours, nil
}

// ArrayControllers lists the NVMe controllers at the bottom of an array's
// stack during the run, for the drive facts (serial, firmware, placement).
func (s Source) ArrayControllers(ctx context.Context, run Run, array string) ([]string, error) {
	q := fmt.Sprintf(`max by (controller) (max_over_time(`+promql.BlockdevLeafInfo+`{array=%q,controller!=""}[%s]))`, array, runSpan(run))
	res, _, _, err := s.API.Query(ctx, q, run.End)
	if err != nil {
		return nil, fmt.Errorf("array %s: %w", array, err)
	}
	var out []string
	if v, ok := res.(model.Vector); ok {
		for _, smp := range v {
			out = append(out, string(smp.Metric["controller"]))
		}
	}
	sort.Strings(out)
	return out, nil
}
