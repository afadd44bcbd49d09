package decode

import "encoding/binary"

// SMARTSize is the length of the SMART / Health Information log (LID 0x02).
const SMARTSize = 512

// DataUnitBytes is one SMART data unit: 1000 x 512-byte sectors, rounded up
// by the drive, so host bytes derived from it are an upper bound.
const DataUnitBytes = 512000

// SMART is the SMART / Health Information log (LID 0x02).
type SMART struct {
	CriticalWarning                 uint8
	TemperatureKelvin               uint16
	AvailableSpare                  uint8 // percent
	AvailableSpareThreshold         uint8 // percent
	PercentageUsed                  uint8 // percent, may exceed 100
	EnduranceGroupWarning           uint8
	DataUnitsRead, DataUnitsWritten U128 // units of DataUnitBytes
	HostReadCommands                U128
	HostWriteCommands               U128
	ControllerBusyMinutes           U128
	PowerCycles                     U128
	PowerOnHours                    U128
	UnsafeShutdowns                 U128
	MediaErrors                     U128
	ErrorLogEntries                 U128
	WarningTempMinutes              uint32
	CriticalTempMinutes             uint32
	TempSensorsKelvin               [8]uint16 // 0 = sensor not implemented
	ThermalTransitions              [2]uint32
	ThermalSeconds                  [2]uint32
}

// ParseSMART decodes the 512-byte SMART log.
func ParseSMART(b []byte) (SMART, error) {
	if err := need("SMART log (0x02)", b, SMARTSize); err != nil {
		return SMART{}, err
	}
	le := binary.LittleEndian
	s := SMART{
		CriticalWarning:         b[0],
		TemperatureKelvin:       le.Uint16(b[1:]),
		AvailableSpare:          b[3],
		AvailableSpareThreshold: b[4],
		PercentageUsed:          b[5],
		EnduranceGroupWarning:   b[6],
		DataUnitsRead:           LE128(b[32:48]),
		DataUnitsWritten:        LE128(b[48:64]),
		HostReadCommands:        LE128(b[64:80]),
		HostWriteCommands:       LE128(b[80:96]),
		ControllerBusyMinutes:   LE128(b[96:112]),
		PowerCycles:             LE128(b[112:128]),
		PowerOnHours:            LE128(b[128:144]),
		UnsafeShutdowns:         LE128(b[144:160]),
		MediaErrors:             LE128(b[160:176]),
		ErrorLogEntries:         LE128(b[176:192]),
		WarningTempMinutes:      le.Uint32(b[192:]),
		CriticalTempMinutes:     le.Uint32(b[196:]),
	}
	for i := range s.TempSensorsKelvin {
		s.TempSensorsKelvin[i] = le.Uint16(b[200+2*i:])
	}
	for i := range 2 {
		s.ThermalTransitions[i] = le.Uint32(b[216+4*i:])
		s.ThermalSeconds[i] = le.Uint32(b[224+4*i:])
	}
	return s, nil
}

// HostWrittenBytes is DataUnitsWritten x 512000; false on 128-bit overflow.
func (s SMART) HostWrittenBytes() (U128, bool) { return s.DataUnitsWritten.MulUint64(DataUnitBytes) }

// HostReadBytes is DataUnitsRead x 512000; false on 128-bit overflow.
func (s SMART) HostReadBytes() (U128, bool) { return s.DataUnitsRead.MulUint64(DataUnitBytes) }

// AppendSMART appends s as the 512-byte SMART log, the layout ParseSMART
// reads (reserved bytes zero): ParseSMART(AppendSMART(nil, s)) == s.
func AppendSMART(b []byte, s SMART) []byte {
	p := make([]byte, SMARTSize)
	le := binary.LittleEndian
	p[0] = s.CriticalWarning
	le.PutUint16(p[1:], s.TemperatureKelvin)
	p[3], p[4], p[5], p[6] = s.AvailableSpare, s.AvailableSpareThreshold, s.PercentageUsed, s.EnduranceGroupWarning
	for i, v := range []U128{s.DataUnitsRead, s.DataUnitsWritten, s.HostReadCommands, s.HostWriteCommands, s.ControllerBusyMinutes,
		s.PowerCycles, s.PowerOnHours, s.UnsafeShutdowns, s.MediaErrors, s.ErrorLogEntries} {
		PutLE128(p[32+16*i:], v)
	}
	le.PutUint32(p[192:], s.WarningTempMinutes)
	le.PutUint32(p[196:], s.CriticalTempMinutes)
	for i, k := range s.TempSensorsKelvin {
		le.PutUint16(p[200+2*i:], k)
	}
	for i := range 2 {
		le.PutUint32(p[216+4*i:], s.ThermalTransitions[i])
		le.PutUint32(p[224+4*i:], s.ThermalSeconds[i])
	}
	return append(b, p...)
}
