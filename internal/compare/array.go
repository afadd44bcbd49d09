package compare

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/prometheus/common/model"
)

// ArrayTable is Table over an md/dm array's chain (seed 001): per round,
// HostBytes is what the filesystem wrote to the array, MemberBytes the sum
// over its members' block writes (data and parity or copies), NANDBytes
// what the NVMe controllers at the bottom of its stack wrote to NAND. So
// WA() is the whole chain's, array to NAND, and RAIDWA() the RAID layer's.
// A round is Missing when an md sync (resync, check, ...) ran in it, when a
// member or a controller has no data, or when a leaf is no NVMe namespace.
func (s Source) ArrayTable(ctx context.Context, run Run, array string, round time.Duration) ([]Hour, error) {
	if !model.LabelValue(array).IsValid() || array == "" {
		return nil, fmt.Errorf("bad array %q", array)
	}
	r, err := rounds(run, round)
	if err != nil {
		return nil, err
	}
	first, rs := r.Start, model.Duration(round).String()
	get := func(q string) (map[int64]float64, error) {
		m, err := s.perRound(ctx, q, r)
		if err != nil {
			return nil, fmt.Errorf("array %s: %s: %w", array, q, err)
		}
		return m, nil
	}
	members := fmt.Sprintf(`walab_blockdev_member_info{array=%q} * on (instance, job, device) group_left () increase(walab_blockdev_written_bytes_total[%s])`, array, rs)
	ctrls := fmt.Sprintf(`max by (instance, job, controller) (walab_blockdev_leaf_info{array=%q})`, array)
	media := func(fn string) string {
		return fmt.Sprintf(`%s * on (instance, job, controller) group_left () label_replace(sum without (source) (%s(walab_nvme_media_written_bytes_total[%s])), "controller", "$1", "device", "(.+)")`, ctrls, fn, rs)
	}
	queries := []string{
		fmt.Sprintf(`sum(increase(walab_blockdev_written_bytes_total{device=%q}[%s]))`, array, rs), // 0 array bytes
		"sum(" + members + ")",   // 1
		"count(" + members + ")", // 2
		fmt.Sprintf(`count(max_over_time(walab_blockdev_member_info{array=%q}[%s]))`, array, rs), // 3 members expected
		"sum(" + media("increase") + ")",   // 4 NAND
		"count(" + media("increase") + ")", // 5
		fmt.Sprintf(`count(max by (instance, job, controller) (max_over_time(walab_blockdev_leaf_info{array=%q}[%s])))`, array, rs), // 6 controllers expected
		fmt.Sprintf(`count(max_over_time(walab_blockdev_leaf_info{array=%q,controller=""}[%s]))`, array, rs),                        // 7 leaves without NAND
		fmt.Sprintf(`max(max_over_time(walab_md_sync_active{device=%q}[%s]))`, array, rs),                                           // 8 sync
		fmt.Sprintf(`sum(count_over_time(walab_blockdev_written_bytes_total{device=%q}[%s]))`, array, rs),                           // 9 array samples
		"min(" + media("count_over_time") + ")", // 10 fewest NAND samples
		"max(" + media("count_over_time") + ")", // 11 most NAND samples
	}
	q := make([]map[int64]float64, len(queries))
	for i, e := range queries {
		m, err := get(e)
		if err != nil {
			return nil, err
		}
		q[i] = m
	}
	var hours []Hour
	seen := false
	for at := first; !at.After(run.End); at = at.Add(round) {
		k := int64(model.TimeFromUnixNano(at.UnixNano()))
		h := Hour{Hour: int((at.Sub(run.Start) + round/2) / round), At: at}
		av, aok := q[0][k]
		seen = seen || aok
		mv, mok := q[1][k]
		nv, nok := q[4][k]
		switch {
		case !aok:
			h.Missing = "no array counter: exporter or Prometheus not scraping"
		case q[8][k] > 0:
			h.Missing = "an md sync (resync, check, recovery) ran in the round"
		case !mok || q[2][k] < q[3][k]:
			h.Missing = fmt.Sprintf("block data for %.0f of %.0f members", q[2][k], q[3][k])
		case q[7][k] > 0:
			h.Missing = "a member at the bottom of the stack is no NVMe namespace: no NAND total"
		case !nok || q[5][k] < q[6][k]:
			h.Missing = fmt.Sprintf("NAND data for %.0f of %.0f controllers", q[5][k], q[6][k])
		case arrayNonFinite(q, k) != "":
			h.Missing = arrayNonFinite(q, k)
		default:
			lo, hi := min(q[9][k], q[10][k]), max(q[9][k], q[11][k])
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
	q := fmt.Sprintf(`max by (controller) (max_over_time(walab_blockdev_leaf_info{array=%q,controller!=""}[%s]))`, array, model.Duration(max(run.End.Sub(run.Start), time.Minute)))
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

// RAIDWA is member bytes per array byte (0 where undefined).
func (h Hour) RAIDWA() float64 {
	if h.HostBytes <= 0 || h.Missing != "" {
		return 0
	}
	return h.MemberBytes / h.HostBytes
}

// AggregateRAIDWA is sum(member) / sum(array) over the rounds with writes.
func AggregateRAIDWA(hours []Hour) float64 {
	var m, a float64
	for _, h := range hours {
		if h.NonZero() {
			m += h.MemberBytes
			a += h.HostBytes
		}
	}
	if a <= 0 {
		return 0
	}
	return m / a
}

// WriteArrayText prints seed 001's table: array, member and NAND bytes per
// round, the RAID WA and the chain's WA.
func WriteArrayText(w io.Writer, hours []Hour) error {
	if _, err := fmt.Fprintf(w, "%4s %12s %12s %8s %12s %8s\n", "hour", "array_MB", "members_MB", "RAID_WA", "NAND_MB", "WA"); err != nil {
		return err
	}
	for _, h := range hours {
		var err error
		switch {
		case h.Missing != "":
			_, err = fmt.Fprintf(w, "%4d %12s %12s %8s %12s %8s  (%s)\n", h.Hour, "-", "-", "-", "-", "missing", h.Missing)
		case h.HostBytes <= 0:
			_, err = fmt.Fprintf(w, "%4d %12.0f %12.0f %8s %12.0f %8s\n", h.Hour, h.HostBytes/MiB, h.MemberBytes/MiB, "idle", h.NANDBytes/MiB, "idle")
		default:
			_, err = fmt.Fprintf(w, "%4d %12.0f %12.0f %8.4f %12.0f %8.5f\n", h.Hour, h.HostBytes/MiB, h.MemberBytes/MiB, h.RAIDWA(), h.NANDBytes/MiB, h.WA())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// deviceSelector is the label matcher of the drives a comparison reads
// facts from: one device, or an array's controllers.
func deviceSelector(devices []string) string {
	if len(devices) == 1 {
		return fmt.Sprintf("device=%q", devices[0])
	}
	quoted := make([]string, len(devices))
	for i, d := range devices {
		quoted[i] = regexpQuote(d)
	}
	return fmt.Sprintf("device=~%q", strings.Join(quoted, "|"))
}

func regexpQuote(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}
