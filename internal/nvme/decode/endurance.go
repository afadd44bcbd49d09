package decode

// EnduranceGroupSize is the length of the Endurance Group Information log (LID 0x09).
const EnduranceGroupSize = 512

// EnduranceUnitBytes is the unit of the Endurance Group log's estimate and
// data/media unit counters: one billion bytes.
const EnduranceUnitBytes = 1_000_000_000

// EnduranceGroup is the Endurance Group Information log (LID 0x09).
type EnduranceGroup struct {
	CriticalWarning         uint8
	AvailableSpare          uint8 // percent
	AvailableSpareThreshold uint8 // percent
	PercentageUsed          uint8 // percent
	EnduranceEstimate       U128  // units of EnduranceUnitBytes
	DataUnitsRead           U128  // units of EnduranceUnitBytes
	DataUnitsWritten        U128  // units of EnduranceUnitBytes, host writes only
	MediaUnitsWritten       U128  // units of EnduranceUnitBytes, host + controller (GC) writes
	HostReadCommands        U128
	HostWriteCommands       U128
	MediaErrors             U128
	ErrorLogEntries         U128
	TotalCapacity           U128 // bytes
	UnallocatedCapacity     U128 // bytes
}

// ParseEnduranceGroup decodes the 512-byte Endurance Group log.
func ParseEnduranceGroup(b []byte) (EnduranceGroup, error) {
	if err := need("Endurance Group log (0x09)", b, EnduranceGroupSize); err != nil {
		return EnduranceGroup{}, err
	}
	return EnduranceGroup{
		CriticalWarning:         b[0],
		AvailableSpare:          b[3],
		AvailableSpareThreshold: b[4],
		PercentageUsed:          b[5],
		EnduranceEstimate:       LE128(b[32:48]),
		DataUnitsRead:           LE128(b[48:64]),
		DataUnitsWritten:        LE128(b[64:80]),
		MediaUnitsWritten:       LE128(b[80:96]),
		HostReadCommands:        LE128(b[96:112]),
		HostWriteCommands:       LE128(b[112:128]),
		MediaErrors:             LE128(b[128:144]),
		ErrorLogEntries:         LE128(b[144:160]),
		TotalCapacity:           LE128(b[160:176]),
		UnallocatedCapacity:     LE128(b[176:192]),
	}, nil
}

// HostWrittenBytes is DataUnitsWritten x 1e9; false on 128-bit overflow.
func (e EnduranceGroup) HostWrittenBytes() (U128, bool) {
	return e.DataUnitsWritten.MulUint64(EnduranceUnitBytes)
}

// MediaWrittenBytes is MediaUnitsWritten x 1e9; false on 128-bit overflow.
func (e EnduranceGroup) MediaWrittenBytes() (U128, bool) {
	return e.MediaUnitsWritten.MulUint64(EnduranceUnitBytes)
}

// AppendEnduranceGroup appends e as the 512-byte Endurance Group log:
// ParseEnduranceGroup(AppendEnduranceGroup(nil, e)) == e.
func AppendEnduranceGroup(b []byte, e EnduranceGroup) []byte {
	p := make([]byte, EnduranceGroupSize)
	p[0], p[3], p[4], p[5] = e.CriticalWarning, e.AvailableSpare, e.AvailableSpareThreshold, e.PercentageUsed
	for i, v := range []U128{e.EnduranceEstimate, e.DataUnitsRead, e.DataUnitsWritten, e.MediaUnitsWritten, e.HostReadCommands,
		e.HostWriteCommands, e.MediaErrors, e.ErrorLogEntries, e.TotalCapacity, e.UnallocatedCapacity} {
		PutLE128(p[32+16*i:], v)
	}
	return append(b, p...)
}
