package wa

import (
	"bytes"
	"testing"
)

// FuzzDecodeState: the state-file decoder must never panic, and whatever it
// accepts must re-encode to the very same bytes (the format has one spelling).
func FuzzDecodeState(f *testing.F) {
	for _, st := range []state{
		{},
		{SavedAt: 1, Devices: []deviceState{{Name: "nvme0", Source: "ocp_c0", Mark: runMark{T: 1, Host: 2, Media: 3}, Samples: []sample{{1, 2, 3}, {2, 4, 9}}}}},
		{SavedAt: 9, Devices: []deviceState{{Name: "a", Mark: runMark{Pending: true}}, {Name: "b", Resets: 7, Samples: []sample{{-1, 0, 0}}}}},
	} {
		f.Add(encodeState(nil, st))
	}
	f.Add([]byte{})
	f.Add([]byte(stateMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := decodeState(b)
		if err != nil {
			return
		}
		if again := encodeState(nil, st); !bytes.Equal(again, b) {
			t.Fatalf("accepted input does not re-encode to itself:\n in  %x\n out %x", b, again)
		}
	})
}
