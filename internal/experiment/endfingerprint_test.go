package experiment

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/fingerprint"
)

// TestEndFingerprintRetries: a run's end fingerprint that lacks the
// drive's counters once (a scrape between a glitch and the next reading)
// is taken again and the run counts; one that lacks them every time is
// lost after endFingerprintTries, with what it lacks.
func TestEndFingerprintRetries(t *testing.T) {
	defer func(w time.Duration) { endFingerprintWait = w }(endFingerprintWait)
	endFingerprintWait = time.Millisecond
	n := 1.0
	start := &fingerprint.Fingerprint{Drive: &fingerprint.Drive{Device: "nvme0", HostWrittenBytes: &n, MediaWrittenBytes: &n}}
	calls := 0
	take := func(okFrom int) func() *fingerprint.Fingerprint {
		calls = 0
		return func() *fingerprint.Fingerprint {
			calls++
			if okFrom > 0 && calls >= okFrom {
				return &fingerprint.Fingerprint{Drive: &fingerprint.Drive{Device: "nvme0", HostWrittenBytes: &n, MediaWrittenBytes: &n}}
			}
			return &fingerprint.Fingerprint{Drive: &fingerprint.Drive{Device: "nvme0"}}
		}
	}
	f, lost := endFingerprint(context.Background(), start, take(3))
	require.Empty(t, lost)
	require.NotNil(t, f.Drive.HostWrittenBytes)
	require.Equal(t, 3, calls)

	_, lost = endFingerprint(context.Background(), start, take(0))
	require.Equal(t, []string{"the drive's counters (nvme0)"}, lost)
	require.Equal(t, endFingerprintTries, calls)
}
