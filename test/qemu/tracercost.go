package qemu

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// TracerArm is one timed write load of the tracer-cost bench (the guest's
// tracercost tool writes one per JSON line).
type TracerArm struct {
	QD     int     `json:"qd"`
	Pair   int     `json:"pair"`   // -1: the run-time statistics arm
	Tracer bool    `json:"tracer"` // placement tracer attached
	Stats  bool    `json:"stats"`  // BPF run-time statistics on
	Writes uint64  `json:"writes"` // 4 KiB writes completed
	Secs   float64 `json:"secs"`
	Traced uint64  `json:"traced"` // write commands the tracer counted
	Runs   uint64  `json:"runs"`   // program runs (stats arm)
	RunNs  uint64  `json:"run_ns"` // program run time (stats arm)
}

// IOPS is the arm's writes per second.
func (a TracerArm) IOPS() float64 { return float64(a.Writes) / a.Secs }

// ParseTracerArms reads the guest's JSON lines; an arm without writes or
// time is an error, not a zero rate.
func ParseTracerArms(r io.Reader) ([]TracerArm, error) {
	var arms []TracerArm
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var a TracerArm
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&a); err != nil {
			return nil, fmt.Errorf("tracer arms line %d: %w", line, err)
		}
		if a.QD < 1 || a.Writes == 0 || !(a.Secs > 0) {
			return nil, fmt.Errorf("tracer arms line %d: qd %d, %d writes in %g s: not a measurement", line, a.QD, a.Writes, a.Secs)
		}
		arms = append(arms, a)
	}
	return arms, sc.Err()
}

// TracerCost is the bench's result at one queue depth.
type TracerCost struct {
	QD                int
	OffIOPS, OnIOPS   float64      // mean over the pairs' arms
	Ratios            []float64    // on/off IOPS of each pair, sorted
	PairIOPS          [][2]float64 // off and on IOPS of each complete pair, in pair order
	Median            float64
	Untraced          uint64  // writes of the on-arms the tracer did not count
	NsPerRun          float64 // program time per run (0: no stats arm)
	Runs              uint64
	NsPerWriteOff     float64 // wall time per write without the tracer, 1/IOPS
	Verdict           string
	PairsWithoutMatch int     // pairs missing their off or on arm
	Slowdown          float64 // emulated CPU time / native time of CalibrationWork (0: not measured)
}

// SummarizeTracerCost groups arms by queue depth (ascending) and pairs
// each off arm with the on arm of the same pair. The verdict against a
// cost limit (0.01 for 1 %) holds only when every pair agrees.
func SummarizeTracerCost(arms []TracerArm, limit float64) []TracerCost {
	byQD := map[int][]TracerArm{}
	for _, a := range arms {
		byQD[a.QD] = append(byQD[a.QD], a)
	}
	var out []TracerCost
	for qd, as := range byQD {
		out = append(out, summarizeQD(qd, as, limit))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].QD < out[j].QD })
	return out
}

func summarizeQD(qd int, arms []TracerArm, limit float64) TracerCost {
	c := TracerCost{QD: qd}
	type pair struct{ off, on *TracerArm }
	pairs := map[int]*pair{}
	var offSum, onSum float64
	var nOff, nOn int
	for i := range arms {
		a := &arms[i]
		if a.Stats {
			c.Runs, c.NsPerRun = a.Runs, float64(a.RunNs)/float64(a.Runs)
			if a.Runs == 0 {
				c.NsPerRun = 0
			}
			continue
		}
		p := pairs[a.Pair]
		if p == nil {
			p = &pair{}
			pairs[a.Pair] = p
		}
		if a.Tracer {
			p.on, onSum, nOn = a, onSum+a.IOPS(), nOn+1
			if a.Traced < a.Writes {
				c.Untraced += a.Writes - a.Traced
			}
		} else {
			p.off, offSum, nOff = a, offSum+a.IOPS(), nOff+1
		}
	}
	var ids []int
	for id := range pairs {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		p := pairs[id]
		if p.off == nil || p.on == nil {
			c.PairsWithoutMatch++
			continue
		}
		c.Ratios = append(c.Ratios, p.on.IOPS()/p.off.IOPS())
		c.PairIOPS = append(c.PairIOPS, [2]float64{p.off.IOPS(), p.on.IOPS()})
	}
	sort.Float64s(c.Ratios)
	if nOff > 0 {
		c.OffIOPS, c.NsPerWriteOff = offSum/float64(nOff), 1e9*float64(nOff)/offSum
	}
	if nOn > 0 {
		c.OnIOPS = onSum / float64(nOn)
	}
	c.Median, c.Verdict = median(c.Ratios), verdict(c.Ratios, limit)
	return c
}

func median(s []float64) float64 {
	n := len(s)
	switch {
	case n == 0:
		return 0
	case n%2 == 1:
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// verdict compares the throughput cost of every pair (sorted ratios) with
// the limit: only a unanimous answer is one.
func verdict(ratios []float64, limit float64) string {
	if len(ratios) < 2 {
		return "NOT VALID: fewer than 2 complete off/on pairs"
	}
	lo, hi := ratios[0], ratios[len(ratios)-1]
	switch {
	case lo >= 1-limit:
		return fmt.Sprintf("cost <= %.0f %% in every pair", 100*limit)
	case hi < 1-limit:
		return fmt.Sprintf("cost > %.0f %% in every pair", 100*limit)
	}
	return fmt.Sprintf("NOT RESOLVED at %.0f %%: the pairs' ratios span %.3f-%.3f (noise of the emulated device and the shared machine)", 100*limit, lo, hi)
}

// Format prints one queue depth's result as the bench shows it.
func (c TracerCost) Format() string {
	var b strings.Builder
	fmt.Fprintf(&b, "QD %d: %.0f IOPS without the tracer, %.0f with it (means of the arms; %d complete pairs)\n", c.QD, c.OffIOPS, c.OnIOPS, len(c.Ratios))
	if len(c.Ratios) > 0 {
		fmt.Fprintf(&b, "  on/off ratio: median %.3f, pairs %.3f-%.3f: %s\n", c.Median, c.Ratios[0], c.Ratios[len(c.Ratios)-1], c.Verdict)
		b.WriteString("  IOPS off/on per pair:")
		for _, p := range c.PairIOPS {
			fmt.Fprintf(&b, " %.0f/%.0f", p[0], p[1])
		}
		b.WriteString("\n")
	} else {
		fmt.Fprintf(&b, "  on/off ratio: %s\n", c.Verdict)
	}
	if c.PairsWithoutMatch > 0 {
		fmt.Fprintf(&b, "  %d pairs lack an off or on arm\n", c.PairsWithoutMatch)
	}
	if c.Untraced > 0 {
		fmt.Fprintf(&b, "  NOT VALID: the tracer missed %d writes of its arms\n", c.Untraced)
	}
	if c.Runs > 0 {
		fmt.Fprintf(&b, "  program: %.0f ns per run over %d runs = %.2f %% of the %.0f ns per write without it\n",
			c.NsPerRun, c.Runs, 100*c.NsPerRun/c.NsPerWriteOff, c.NsPerWriteOff)
		if c.Slowdown > 0 {
			fmt.Fprintf(&b, "  estimate on the host's CPU (emulated CPU %.1fx slower on a calibration loop): %.0f ns per run\n",
				c.Slowdown, c.NsPerRun/c.Slowdown)
		}
	} else {
		b.WriteString("  program: no run-time statistics\n")
	}
	return b.String()
}

// CalibrationWork is a fixed CPU-bound job (FNV-1a over a 4 KiB buffer,
// 2,000 times); it returns the fastest of five runs. Timed natively and in
// the guest, the ratio is how much slower the emulated CPU runs ordinary
// code: the bench divides the program's time per run by it for an estimate
// of that time on the host's CPU.
func CalibrationWork() time.Duration {
	buf := make([]byte, 4096)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	best := time.Duration(1<<63 - 1)
	for range 5 {
		start := time.Now()
		h := uint32(2166136261)
		for range 2000 {
			for _, b := range buf {
				h = (h ^ uint32(b)) * 16777619
			}
		}
		calibrationSink = h
		best = min(best, time.Since(start))
	}
	return best
}

var calibrationSink uint32 // keeps the loop from being optimized away
