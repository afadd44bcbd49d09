#!/usr/bin/env bash
# The verdict's error rates on the whole pipeline, in simulated time: the
# exporter's simulated drive, loadgen TPC-C against a private mariadbd, a
# real Prometheus scraping every second, walab compare's judge
# (e2e/verdict_rates_test.go, build tag verdictrates; docs/compare.md).
#
#   A/A: PAIRS pairs of placement-off windows -> the share of VALID verdicts
#        calling WA or throughput significant (target <= 5%).
#   A/B placement off vs on: the share detected and the coverage of the
#        reference effect (all windows pooled) by each pair's interval.
#   A/B rate: RATE_PAIRS pairs of runs at --rate X and 0.9 X: a known -10%
#        throughput change; the share detected and the coverage of -10%.
#   Rounds for a 5% change at 80% power, from the A/A estimates' spread.
#
# One long loadgen run is cut into windows (placement alternating off, on,
# off, ... with a settling round after each switch): this is statistically
# honest for the A/B pairs because the effect is switched on and off
# within the same run, and for the A/A pairs because both windows of a
# pair follow an "on" window alike; adjacent A/A pairs share a window, so
# their verdicts are not independent (the rate's error is larger than a
# binomial one of the same N).
#
# Usage: bench/verdict-error-rates.sh   (settings via environment)
# Needs prometheus, mariadbd (mariadb-server) and curl, as make test does.
# Takes about 35 minutes with the defaults.
set -euo pipefail

export VR_PAIRS=${PAIRS:-20}          # A/A and A/B placement pairs
export VR_RATE_PAIRS=${RATE_PAIRS:-10} # A/B rate pairs
export VR_ROUNDS=${ROUNDS:-8}          # compared rounds per window
export VR_ROUND_SECONDS=${ROUND_SECONDS:-3}
export VR_OUT=${OUT:-$(pwd)/verdict-error-rates.tsv} # one line per pair

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
go test -tags verdictrates -count=1 -run TestVerdictErrorRates -v -timeout 3h ./e2e/ | grep -E 'RATES|^(---|ok|FAIL|PASS)|Error'
echo "pairs: $VR_OUT"
