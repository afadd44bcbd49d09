package irq

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseCPUList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
		err  string
	}{
		{in: "", want: nil},
		{in: "\n", want: nil},
		{in: "0", want: []int{0}},
		{in: "0-3\n", want: []int{0, 1, 2, 3}},
		{in: "0-1,8,10-11", want: []int{0, 1, 8, 10, 11}},
		{in: "3,1,1-2", want: []int{1, 2, 3}},
		{in: "3-1", err: "backwards"},
		{in: "a", err: "bad CPU id"},
		{in: "1,,2", err: "empty CPU id"},
		{in: "0-70000", err: "bad CPU id"},
		{in: "-1", err: "empty CPU id"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseCPUList(tc.in)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"0-3", "0-1,8,10-11", "", "65535"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseCPUList(s)
		if err != nil {
			return
		}
		require.True(t, sort.IntsAreSorted(got))
		for i := 1; i < len(got); i++ {
			require.NotEqual(t, got[i-1], got[i])
		}
	})
}
