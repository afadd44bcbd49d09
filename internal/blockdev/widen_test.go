package blockdev

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWidenAcrossWrap: time_in_queue wraps at 2^32 ms; the widened value
// keeps growing, and a re-created device starts again from its own values.
func TestWidenAcrossWrap(t *testing.T) {
	var w Widener
	dev := func(writes, queue uint64) []Stat {
		return []Stat{{Major: 259, Name: "nvme0n1", WriteIOs: writes, TimeInQueue: queue, WriteTicks: writes * 25}}
	}
	require.Equal(t, uint64(wrap32-1000), w.Widen(dev(10, wrap32-1000))[0].TimeInQueue)
	got := w.Widen(dev(20, 500))[0]
	require.Equal(t, uint64(wrap32+500), got.TimeInQueue, "1500 ms later, across the wrap")
	require.Equal(t, uint64(500), got.WriteTicks, "a column that did not wrap is untouched")
	require.Equal(t, uint64(wrap32+900), w.Widen(dev(30, 900))[0].TimeInQueue)
	// Removed and re-created: its write count went back.
	require.Equal(t, uint64(100), w.Widen(dev(1, 100))[0].TimeInQueue)
	// A device missing from one read is forgotten, not carried.
	w.Widen(nil)
	require.Equal(t, uint64(50), w.Widen(dev(2, 50))[0].TimeInQueue)
}
