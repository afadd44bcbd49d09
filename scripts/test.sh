#!/usr/bin/env bash
# walab's whole test suite: installs and starts what the tests need, then
# runs every test. Integration tests fail (not skip) under CI=true when a
# service or binary is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export CI="${CI:-true}"
# Tools setup.sh builds with go install (victoria-metrics) live here.
export PATH="$(go env GOPATH)/bin:$PATH"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.git/*'))
if [ -n "$unformatted" ]; then
	echo "gofmt: these files are not formatted:" >&2
	echo "$unformatted" >&2
	exit 1
fi
go vet ./...
go test -count=1 -timeout 50m ./...
