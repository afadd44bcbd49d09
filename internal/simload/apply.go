package simload

import "github.com/walab/walab/internal/ftl"

// Apply executes one op on the model. With placement the op's stream selects
// the open block; without it every write shares stream 0 (the baseline).
// It returns the pages written (0 for a trim).
func Apply(m *ftl.Model, op Op, placement bool) (uint32, error) {
	if op.Trim {
		return 0, m.Trim(op.LPN, op.Pages)
	}
	s := 0
	if placement {
		s = int(op.Stream)
	}
	for i := uint32(0); i < op.Pages; i++ {
		if err := m.Write(op.LPN+i, s); err != nil {
			return i, err
		}
	}
	return op.Pages, nil
}
