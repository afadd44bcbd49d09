package compare

import (
	"context"
	"fmt"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/walab/walab/internal/promql"
)

// arrayRounds are the per-round answers ArrayTable judges a round by, each
// keyed by the round's end (model time).
type arrayRounds struct {
	arrayBytes          map[int64]float64 // what the filesystem wrote to the array
	memberBytes         map[int64]float64 // the members' block writes, summed
	members             map[int64]float64 // members with block data
	membersExpected     map[int64]float64 // members the array had
	nandBytes           map[int64]float64 // NAND bytes of the controllers below
	controllers         map[int64]float64 // controllers with NAND data
	controllersExpected map[int64]float64 // controllers at the bottom of the stack
	leavesWithoutNAND   map[int64]float64 // leaves that are no NVMe namespace
	sync                map[int64]float64 // an md sync ran (max of md_sync_active)
	arraySamples        map[int64]float64 // samples of the array's counter
	nandSamplesMin      map[int64]float64 // fewest samples of a NAND counter
	nandSamplesMax      map[int64]float64 // most samples of a NAND counter
}

// arrayQueries are the PromQL for each of q's fields, over rounds of rs.
func arrayQueries(q *arrayRounds, array, rs string) []struct {
	dst  *map[int64]float64
	expr string
} {
	sel := fmt.Sprintf("{array=%q}", array)
	members := promql.MemberWritten(sel, "increase", rs)
	ctrls := fmt.Sprintf(`max by (instance, job, controller) (%s%s)`, promql.BlockdevLeafInfo, sel)
	nand := func(fn string) string { return promql.LeafControllerNAND(ctrls, fn, rs) }
	arrayCounter := fmt.Sprintf("%s{device=%q}[%s]", promql.BlockdevWrittenBytes, array, rs)
	return []struct {
		dst  *map[int64]float64
		expr string
	}{
		{&q.arrayBytes, "sum(increase(" + arrayCounter + "))"},
		{&q.memberBytes, "sum(" + members + ")"},
		{&q.members, "count(" + members + ")"},
		{&q.membersExpected, fmt.Sprintf(`count(max_over_time(%s%s[%s]))`, promql.BlockdevMemberInfo, sel, rs)},
		{&q.nandBytes, "sum(" + nand("increase") + ")"},
		{&q.controllers, "count(" + nand("increase") + ")"},
		{&q.controllersExpected, fmt.Sprintf(`count(max by (instance, job, controller) (max_over_time(%s%s[%s])))`, promql.BlockdevLeafInfo, sel, rs)},
		{&q.leavesWithoutNAND, fmt.Sprintf(`count(max_over_time(%s{array=%q,controller=""}[%s]))`, promql.BlockdevLeafInfo, array, rs)},
		{&q.sync, fmt.Sprintf(`max(max_over_time(%s{device=%q}[%s]))`, promql.MDSyncActive, array, rs)},
		{&q.arraySamples, "sum(count_over_time(" + arrayCounter + "))"},
		{&q.nandSamplesMin, "min(" + nand("count_over_time") + ")"},
		{&q.nandSamplesMax, "max(" + nand("count_over_time") + ")"},
	}
}

// arrayRounds asks every array query over the rounds r.
func (s Source) arrayRounds(ctx context.Context, array, rs string, r v1.Range) (*arrayRounds, error) {
	q := &arrayRounds{}
	for _, aq := range arrayQueries(q, array, rs) {
		m, err := s.perRound(ctx, aq.expr, r)
		if err != nil {
			return nil, fmt.Errorf("array %s: %s: %w", array, aq.expr, err)
		}
		*aq.dst = m
	}
	return q, nil
}

// nonFinite is nonFinite over the figures ArrayTable counts a round with.
func (q *arrayRounds) nonFinite(k int64) string {
	return nonFinite(figure{"the array's byte increase", q.arrayBytes[k]}, figure{"the members' byte increase", q.memberBytes[k]},
		figure{"NAND counter increase", q.nandBytes[k]}, figure{"the array's sample count", q.arraySamples[k]},
		figure{"NAND sample count", q.nandSamplesMin[k]}, figure{"NAND sample count", q.nandSamplesMax[k]})
}
