#!/usr/bin/env bash
# walab's whole test suite: installs what it needs, then runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export CI="${CI:-}"
go vet ./...
go test -count=1 -timeout 40m ./... 2>&1 | tee /tmp/walab-go-test.log
