.PHONY: run test build

# The main job: the exporter on the embedded simulated NVMe drive.
run:
	go run ./exporter

# Every test, including the real-MariaDB, Prometheus and QEMU ones.
test:
	bash scripts/test.sh

build:
	CGO_ENABLED=0 go build -o bin/ ./exporter ./loadgen
