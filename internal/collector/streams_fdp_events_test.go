package collector

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/decode"
)

// fdpEventsLog builds log 0x23 from the specification's offsets: the count
// at byte 0, 64-byte descriptors from byte 64 (type @0, flags @1, PID @2,
// timestamp @4 with its attributes @10, NSID @12, RGID @32, RUHID @34).
func fdpEventsLog(events ...[3]uint64) []byte { // {type, milliseconds, timestamp attributes}
	b := make([]byte, 64+64*len(events))
	le32(b, 0, uint32(len(events)))
	for i, e := range events {
		d := b[64+64*i:]
		d[0], d[1] = byte(e[0]), 0x07
		le64(d, 4, e[1])
		d[10] = byte(e[2])
		le32(d, 12, 1)
	}
	return b
}

func TestStreamsFDPEvents(t *testing.T) {
	const host, ctrl = "log/0x23/1/lsp1", "log/0x23/1"
	scrape := func(t *testing.T, pages map[string][]byte) (string, error) {
		f, backs := testFleet()
		for k, p := range pages {
			backs["nvme1"].pages[k] = p
		}
		return hostScrape(t, newTestStreams(t, "testdata/streams", "", f))
	}
	series := func(got string) []string {
		var out []string
		for _, l := range strings.Split(got, "\n") {
			if strings.HasPrefix(l, "walab_nvme_fdp_event") {
				out = append(out, l)
			}
		}
		return out
	}

	t.Run("both logs: counts by type, the newest host-set timestamp", func(t *testing.T) {
		got, err := scrape(t, map[string][]byte{
			host: fdpEventsLog([3]uint64{0x00, 1796404432496, 0x02}, [3]uint64{0x03, 1796404440000, 0x02}, [3]uint64{0x70, 1796404450000, 0x00}),
			ctrl: fdpEventsLog([3]uint64{0x80, 1796404439000, 0x02}, [3]uint64{0x80, 99, 0x00}, [3]uint64{0xF0, 5, 0x00}),
		})
		require.NoError(t, err)
		want := map[string]float64{"ru_not_fully_written": 1, "ru_time_limit_exceeded": 0, "ctrl_reset_modified_ruh": 0, "invalid_pid": 1,
			"media_reallocated": 2, "implicitly_modified_ruh": 0, "other": 2}
		for typ, n := range want {
			require.Equal(t, n, hostValue(t, got, `walab_nvme_fdp_events{device="nvme1",type="`+typ+`"}`), typ)
		}
		// 0x70 at ...450000 has origin 0 (counted from a reset): not Unix time.
		require.Equal(t, 1796404440.0, hostValue(t, got, `walab_nvme_fdp_event_newest_timestamp_seconds{device="nvme1"}`))
		require.Len(t, series(got), len(decode.FDPEventTypeNames())+1, "a series per type name and one timestamp: bounded whatever the device logs")
		require.NotContains(t, got, `walab_nvme_fdp_events{device="nvme0"`, "no FDP: no events series")
	})

	t.Run("empty logs: zero counts, no timestamp", func(t *testing.T) {
		got, err := scrape(t, map[string][]byte{host: fdpEventsLog(), ctrl: fdpEventsLog()})
		require.NoError(t, err)
		require.Equal(t, 0.0, hostValue(t, got, `walab_nvme_fdp_events{device="nvme1",type="ru_not_fully_written"}`))
		require.NotContains(t, got, "walab_nvme_fdp_event_newest_timestamp_seconds{")
	})

	t.Run("one log unsupported: no counts, which would under-count", func(t *testing.T) {
		got, err := scrape(t, map[string][]byte{host: fdpEventsLog([3]uint64{0x00, 1, 0x02})})
		require.NoError(t, err)
		require.NotContains(t, got, "walab_nvme_fdp_events{")
	})

	t.Run("a count from the device beyond the bound is an error, not a huge read", func(t *testing.T) {
		bad := fdpEventsLog()
		le32(bad, 0, 0xFFFFFFFF)
		got, err := scrape(t, map[string][]byte{host: bad, ctrl: fdpEventsLog()})
		require.ErrorContains(t, err, "claims 4294967295 events (limit 1023)")
		require.NotContains(t, got, "walab_nvme_fdp_events{")
		require.Contains(t, got, `walab_nvme_fdp_enabled{device="nvme1"} 1`, "what was read before the bad page is kept")
		require.Contains(t, got, `walab_placement_hints_effective{device="nvme1",reason="fdp_write_streams_block_only"} 1`, "a bad events log leaves the placement state known")
	})

	t.Run("more than 4 KiB of events: a second, whole read", func(t *testing.T) {
		evs := make([][3]uint64, 100)
		for i := range evs {
			evs[i] = [3]uint64{0x81, uint64(i), 0x02}
		}
		f, backs := testFleet()
		backs["nvme1"].pages[host] = fdpEventsLog()
		backs["nvme1"].pages[ctrl] = fdpEventsLog(evs...)
		got, err := hostScrape(t, newTestStreams(t, "testdata/streams", "", f))
		require.NoError(t, err)
		require.Equal(t, 100.0, hostValue(t, got, `walab_nvme_fdp_events{device="nvme1",type="implicitly_modified_ruh"}`))
		require.Equal(t, 0.099, hostValue(t, got, `walab_nvme_fdp_event_newest_timestamp_seconds{device="nvme1"}`))
		require.Equal(t, uint64(3), f.Controllers[1].Device.Stats().Sent[admin.CommandKey{Opcode: admin.OpGetLogPage, LogID: 0x23}], "host once, controller twice")
	})
}
