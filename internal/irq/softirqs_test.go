package irq

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const sampleSoftirqs = `                    CPU0       CPU1
          HI:          0          1
       TIMER:      14487      18514
      NET_RX:       6600          3
`

func TestParseSoftirqs(t *testing.T) {
	got, err := ParseSoftirqs([]byte(sampleSoftirqs))
	require.NoError(t, err)
	require.Equal(t, &Softirqs{CPUs: []int{0, 1}, Types: []SoftirqType{
		{Name: "HI", Counts: []uint64{0, 1}},
		{Name: "TIMER", Counts: []uint64{14487, 18514}},
		{Name: "NET_RX", Counts: []uint64{6600, 3}},
	}}, got)
}

func TestParseSoftirqsErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", "", "empty"},
		{"truncated", sampleSoftirqs[:len(sampleSoftirqs)-3], "truncated"},
		{"repeated cpu", "  CPU1 CPU1\n HI: 1 2\n", "CPU1 twice"},
		{"header only", "  CPU0 CPU1\n", "no softirq rows"},
		{"short row", "  CPU0 CPU1\n HI: 1\n", "header lists 2 CPUs"},
		{"long row", "  CPU0\n HI: 1 2\n", "header lists 1 CPUs"},
		{"bad count", "  CPU0\n HI: -1\n", `count "-1"`},
		{"repeated", "  CPU0\n HI: 1\n HI: 2\n", "repeated"},
		{"no colon", "  CPU0\n HI 1\n", "not TYPE:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSoftirqs([]byte(tc.in))
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func FuzzParseSoftirqs(f *testing.F) {
	f.Add([]byte(sampleSoftirqs))
	f.Add([]byte("  CPU0 CPU3\n HI: 1 2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ParseSoftirqs(b)
		if err != nil {
			return
		}
		require.NotEmpty(t, got.Types)
		for _, ty := range got.Types {
			require.Len(t, ty.Counts, len(got.CPUs))
		}
	})
}
