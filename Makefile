.PHONY: run exporter test lab generate build bench dist

# The commit for --version and walab_build_info: the Go toolchain stamps it
# only for go build in a plain git checkout, not for go run, a worktree or
# -buildvcs=false (internal/buildinfo).
BUILDINFO := github.com/walab/walab/internal/buildinfo
LDFLAGS := -X $(BUILDINFO).revision=$(shell git rev-parse HEAD 2>/dev/null) -X $(BUILDINFO).modified=$(shell git diff --quiet HEAD 2>/dev/null || echo true)

# The main job: the lab's whole loop on this machine, on loopback. The exporter
# on a small simulated drive, Prometheus with walab's rules, and seed 000's plan
# in a short form (baseline vs streams under TPC-C on the local MariaDB); prints
# the verdict and the HTML report's path, then stays up until Ctrl-C. First
# installs what the lab runs that is missing (scripts/setup.sh --lab: the
# packages marked lab in scripts/apt-packages.txt; one line and a stop where
# it cannot, without root).
run:
	bash scripts/setup.sh --lab
	$(MAKE) build
	bin/walab lab

# The exporter alone on 127.0.0.1:10131 (what a real database host runs).
# Without an NVMe controller it serves the embedded simulated drive; the local
# MariaDB is its InnoDB target.
exporter:
	go run -ldflags "$(LDFLAGS)" ./exporter --config.file=deploy/local/exporter.yml --web.listen-address=127.0.0.1:10131 --web.enable-mutations --collector.placement_trace

# Every test: installs what the tests need (scripts/setup.sh), then go vet and go test.
test:
	bash scripts/test.sh

# A long-running lab without Docker, on loopback: exporter, loadgen TPC-C for
# 12 h, Prometheus, Alertmanager.
lab:
	sh deploy/local/lab.sh

# Regenerate the rule files, the Kubernetes PrometheusRule and the dashboards.
generate:
	go run ./alerts/gen
	go run ./dashboards

build:
	CGO_ENABLED=0 go build -ldflags "$(LDFLAGS)" -o bin/ ./exporter ./loadgen ./walab

# loadgen against sysbench 1.0.20, side by side on the local MariaDB.
bench:
	bash bench/sysbench-compare.sh

# Release artifacts into dist/ (internal/release, tools/dist): static
# binaries of exporter, loadgen and walab for linux/amd64 and linux/arm64 in
# walab-VERSION.linux-ARCH.tar.gz, the walab-exporter and walab packages
# (.deb, .rpm) with the exporter's systemd unit, and sha256sums.txt. VERSION
# is the file's; the build date is the commit's, so a second make dist of
# the same commit writes the same bytes. Refuses a work tree with
# uncommitted changes (go run ./tools/dist --allow-dirty builds one anyway).
dist:
	rm -rf dist
	go run ./tools/dist --out dist
