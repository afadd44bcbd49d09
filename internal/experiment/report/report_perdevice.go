package report

import (
	"fmt"
	"strings"

	"github.com/walab/walab/internal/drivetable"
	"github.com/walab/walab/internal/fingerprint"
	"github.com/walab/walab/internal/sizeprofile"
)

// reportPerDevice is seed 001's two tables of one run, from its start and
// end fingerprints: every drive's host and NAND bytes and WA (the members
// of an array among them), and every block device's I/O sizes (with the
// exporter's io_size collector on). Nothing without an end fingerprint.
func reportPerDevice(b *strings.Builder, start, end *fingerprint.Fingerprint) {
	if start == nil || end == nil {
		return
	}
	if t := drivetable.Markdown(drivetable.Rows(start.AllDrives(), end.AllDrives())); t != "" {
		fmt.Fprintf(b, "\nEvery drive between the run's start and end (seed 001's table; GiB = 2^30 bytes; — where a counter or the drive is missing, never 0):\n\n%s", t)
	}
	if t := sizeprofile.Markdown(sizeprofile.Rows(start.IOSizes, end.IOSizes)); t != "" {
		fmt.Fprintf(b, "\nI/O sizes submitted during the run, per block device (seed 001's I/O-size profile; the exporter's io_size collector):\n\n%s", t)
	}
}
