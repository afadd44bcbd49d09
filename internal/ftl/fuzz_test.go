package ftl

import (
	"encoding/binary"
	"testing"
)

// FuzzModelOps decodes bytes into a drive shape and a sequence of writes,
// trims and seals; the model must never panic and must stay consistent.
func FuzzModelOps(f *testing.F) {
	f.Add([]byte{0x10, 0x08, 0x20, 0x02, 0x00, 0x01, 0x00, 0x02, 0x01, 0x03, 0x00, 0x04, 0x02, 0x05, 0x00})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x01, 0xff, 0xff, 0x01, 0xff, 0xff, 0x02, 0x00, 0x00})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 4 {
			return
		}
		cfg := Config{
			LogicalPages: 64 + uint32(data[0])*4,
			BlockPages:   2 + uint32(data[1]%31),
			PageSize:     4096,
			SpareFactor:  0.05 + float64(data[2]%80)/100,
			Streams:      1 + int(data[3]%4),
			Policy:       Policy(data[3] >> 7),
		}
		m, err := New(cfg)
		if err != nil {
			return // a shape Validate refuses is fine; it must not panic
		}
		data = data[4:]
		for i := 0; i+3 <= len(data); i += 3 {
			arg := uint32(binary.LittleEndian.Uint16(data[i+1:]))
			switch data[i] % 8 {
			case 0:
				_ = m.Trim(arg%(cfg.LogicalPages+8), uint32(data[i]>>3))
			case 1:
				m.Seal(int(data[i] >> 3))
			default:
				// Repeat the write to push the drive into GC with few input bytes.
				for j := uint32(0); j < 1+uint32(data[i]>>3)*8; j++ {
					_ = m.Write((arg+j*7)%(cfg.LogicalPages+4), int(data[i]>>3))
				}
			}
		}
		if err := m.Check(); err != nil {
			t.Fatal(err)
		}
	})
}
