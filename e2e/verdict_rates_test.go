//go:build verdictrates

package e2e

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/compare"
)

// TestVerdictErrorRates measures the verdict's error rates on the whole
// pipeline (bench/verdict-error-rates.sh runs it): the exporter's simulated
// drive, loadgen TPC-C against a private mariadbd, a real Prometheus
// scraping every second, walab compare's judge. See docs/compare.md.
//
// Phase 1 is one long loadgen run cut into windows of VR_ROUNDS rounds
// (plus one settling round after each placement switch, not compared),
// placement alternating off, on, off, on...: each (off, next on) is an
// A/B pair with a known effect, each (off, next off) an A/A pair. Phase 2
// is VR_RATE_PAIRS pairs of short loadgen runs, --rate X then 0.9·X: a
// throughput change of exactly -10% while loadgen keeps up.
func TestVerdictErrorRates(t *testing.T) {
	envInt := func(k string, def int) int {
		if v, err := strconv.Atoi(os.Getenv(k)); err == nil && v > 0 {
			return v
		}
		return def
	}
	pairs, rounds, ratePairs := envInt("VR_PAIRS", 20), envInt("VR_ROUNDS", 8), envInt("VR_RATE_PAIRS", 10)
	round := time.Duration(envInt("VR_ROUND_SECONDS", 3)) * time.Second
	out := os.Getenv("VR_OUT")
	if out == "" {
		out = filepath.Join(t.TempDir(), "pairs.tsv")
	}
	h := startRatesLab(t)
	nWin := 2*pairs + 1 // pairs+1 off windows, pairs on windows, in one run
	starts := h.alternate(t, "vr-phase1", nWin, rounds, round)
	rng := func(w int) *[2]time.Time { return windowRange(starts[w], rounds, round) }
	var aa, ab []pairResult
	for i := range pairs {
		aa = append(aa, h.compare(t, "aa", rng(2*i), rng(2*i+2), rounds, "off"))
		ab = append(ab, h.compare(t, "placement", rng(2*i), rng(2*i+1), rounds, "differs"))
	}
	// Phase 2: rate-limited pairs, the rate from phase 1's throughput.
	var tps float64
	for _, p := range aa {
		tps += p.baseTPS / float64(len(aa))
	}
	rate := math.Floor(0.6 * tps)
	var rt []pairResult
	for i := range ratePairs {
		rt = append(rt, h.ratePair(t, fmt.Sprintf("vr-rate-%d", i), rate, rounds, round))
	}
	writePairs(t, out, append(append(aa, ab...), rt...))
	report(t, "A/A (placement off vs off)", aa, 0, 0, rounds)
	report(t, "A/B placement (off vs on)", ab, pooledChange(ab), math.NaN(), rounds)
	report(t, fmt.Sprintf("A/B rate (%g vs %g transactions/s)", rate, 0.9*rate), rt, math.NaN(), -0.10, rounds)
}

// pooledChange is the WA change of all candidate rounds against all
// baseline rounds of the pairs: the reference effect the pairs' intervals
// should cover (its own error is about 1/sqrt(pairs) of one pair's).
func pooledChange(ps []pairResult) float64 {
	var s [2][2]float64
	for _, p := range ps {
		for i := range 2 {
			s[i][0] += p.nand[i]
			s[i][1] += p.host[i]
		}
	}
	return (s[1][0]/s[1][1])/(s[0][0]/s[0][1]) - 1
}

func writePairs(t *testing.T, path string, ps []pairResult) {
	var b strings.Builder
	b.WriteString("kind\tvalid\twa_est\twa_lo\twa_hi\ttput_est\ttput_lo\ttput_hi\tbase_rounds_tps\tcand_rounds_tps\treasons\n")
	for _, p := range ps {
		fmt.Fprintf(&b, "%s\t%t\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%s\t%s\t%s\n", p.kind, p.valid, p.wa.Est, p.wa.Lo, p.wa.Hi,
			p.tput.Est, p.tput.Lo, p.tput.Hi, p.roundsTPS[0], p.roundsTPS[1], p.reasons)
	}
	t.Logf("pairs:\n%s", b.String())
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	t.Logf("pairs: %s", path)
}

// report logs one kind's rates: VALID share; among VALID pairs the share
// calling WA or throughput significant, the coverage of a known true
// change (NaN: none), the spread of the estimates and the rounds a 5%
// change needs at 80% power (two-sided 5% test: n = rounds·(2.80·sd/0.05)²).
func report(t *testing.T, name string, ps []pairResult, waTrue, tputTrue float64, rounds int) {
	var valid, waSig, tpSig, waCov, tpCov int
	var wa, tp []float64
	var waIv, tpIv []compare.Interval
	for _, p := range ps {
		if !p.valid {
			continue
		}
		valid++
		if p.wa.Significant() {
			waSig++
		}
		if p.tput.Significant() {
			tpSig++
		}
		if p.wa.OK && p.wa.Lo <= waTrue && waTrue <= p.wa.Hi {
			waCov++
		}
		if p.tput.OK && p.tput.Lo <= tputTrue && tputTrue <= p.tput.Hi {
			tpCov++
		}
		wa, tp = append(wa, p.wa.Est), append(tp, p.tput.Est)
		waIv, tpIv = append(waIv, p.wa), append(tpIv, p.tput)
	}
	pct := func(k int) string {
		return fmt.Sprintf("%d/%d (%.0f%%)", k, valid, 100*float64(k)/math.Max(float64(valid), 1))
	}
	need := func(xs []float64) string {
		sd := sdOf(xs)
		return fmt.Sprintf("sd %.2f%% -> %.0f rounds for 5%%", 100*sd, math.Ceil(float64(rounds)*math.Pow(2.80*sd/0.05, 2)))
	}
	// The same from the intervals' own width (the spread within windows):
	// the median half-width over 1.96 is one pair's standard error.
	needWidth := func(ivs []compare.Interval) string {
		var hs []float64
		for _, iv := range ivs {
			if iv.OK {
				hs = append(hs, math.Log1p(iv.Hi)-math.Log1p(iv.Est)) // log scale: the interval is symmetric there
			}
		}
		if len(hs) == 0 {
			return "no interval"
		}
		sort.Float64s(hs)
		se := hs[len(hs)/2] / 1.96
		return fmt.Sprintf("median interval ±%.2f%% (log) -> %.0f rounds for 5%%", 100*hs[len(hs)/2], math.Ceil(float64(rounds)*math.Pow(2.80*se/math.Log(1.05), 2)))
	}
	t.Logf("RATES %s: %d pairs, VALID %d; WA significant %s, throughput significant %s", name, len(ps), valid, pct(waSig), pct(tpSig))
	if !math.IsNaN(waTrue) {
		t.Logf("RATES %s: WA reference change %+.2f%%, covered %s", name, 100*waTrue, pct(waCov))
	}
	if !math.IsNaN(tputTrue) {
		t.Logf("RATES %s: throughput true change %+.2f%%, covered %s", name, 100*tputTrue, pct(tpCov))
	}
	t.Logf("RATES %s: estimates over %d rounds: WA %s; throughput %s", name, rounds, need(wa), need(tp))
	t.Logf("RATES %s: intervals over %d rounds: WA %s; throughput %s", name, rounds, needWidth(waIv), needWidth(tpIv))
}

func sdOf(xs []float64) float64 {
	if len(xs) < 2 {
		return math.NaN()
	}
	var m, v float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return math.Sqrt(v / float64(len(xs)-1))
}
