// Package placement answers the host-side questions about NVMe data
// placement: is a placement daemon (astream) or irqbalance running, does
// this kernel still have the nvme_core streams parameter, and can a file's
// write-life hint reach a given device at all.
package placement
