package admin

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// recorder is a backend that remembers every opcode that reached it.
type recorder struct{ seen []uint8 }

func (r *recorder) Exec(_ context.Context, c Command) (Result, error) {
	r.seen = append(r.seen, c.Opcode)
	return Result{Data: make([]byte, c.DataLen)}, nil
}
func (r *recorder) Close() error { return nil }

func TestGuardAllOpcodes(t *testing.T) {
	rec := &recorder{}
	d := New("nvme0", rec)
	allowed := map[uint8]bool{0x02: true, 0x06: true, 0x0A: true, 0x1A: true}
	for op := 0; op < 256; op++ {
		_, err := d.Submit(context.Background(), Command{Opcode: uint8(op), DataLen: 4})
		if allowed[uint8(op)] {
			require.NoError(t, err, "opcode 0x%02x", op)
			continue
		}
		var re *RefusedError
		require.True(t, errors.As(err, &re), "opcode 0x%02x must be refused, got %v", op, err)
		require.Equal(t, uint8(op), re.Opcode)
	}
	require.Equal(t, []uint8{0x02, 0x06, 0x0A, 0x1A}, rec.seen, "only read-only opcodes may reach the backend")
	st := d.Stats()
	require.Equal(t, uint64(252), st.Refused)
	// Set Features, Format NVM, Sanitize, Firmware Commit, Directive Send, vendor: all refused.
	for _, op := range []uint8{0x09, 0x80, 0x84, 0x10, 0x19, 0xC0, 0x0D} {
		require.False(t, Allowed(op), "0x%02x", op)
	}
}

func TestSubmitCountsByOpcodeAndLog(t *testing.T) {
	d := New("nvme0", &recorder{})
	c, err := GetLogPage(LogPage{LID: 0x02, NSID: NSIDAll, Len: 512, RAE: true})
	require.NoError(t, err)
	for i := 0; i < 3; i++ {
		_, err := d.Submit(context.Background(), c)
		require.NoError(t, err)
	}
	_, err = d.Submit(context.Background(), Identify(CNSController, 0))
	require.NoError(t, err)
	st := d.Stats()
	require.Equal(t, uint64(3), st.Sent[CommandKey{Opcode: OpGetLogPage, LogID: 0x02}])
	require.Equal(t, uint64(1), st.Sent[CommandKey{Opcode: OpIdentify}])
}

type failing struct{ err func(Command) error }

func (f failing) Exec(_ context.Context, c Command) (Result, error) { return Result{}, f.err(c) }
func (f failing) Close() error                                      { return nil }

func TestSubmitCountsErrorsByStatus(t *testing.T) {
	d := New("nvme0", failing{err: Unsupported})
	c, err := GetLogPage(LogPage{LID: 0xC0, NSID: NSIDAll, Len: 512})
	require.NoError(t, err)
	_, err = d.Submit(context.Background(), c)
	require.True(t, IsUnsupported(err))
	require.Contains(t, err.Error(), "lid=0xc0")
	require.Equal(t, uint64(1), d.Stats().Failures[ErrorKey{Opcode: OpGetLogPage, Status: 0x4002}])
}

func TestShortBackendAnswerIsAnError(t *testing.T) {
	d := New("nvme0", shortBackend{})
	_, err := d.Submit(context.Background(), Identify(CNSController, 0))
	require.ErrorContains(t, err, "returned 10 bytes, want 4096")
}

type shortBackend struct{}

func (shortBackend) Exec(context.Context, Command) (Result, error) {
	return Result{Data: make([]byte, 10)}, nil
}
func (shortBackend) Close() error { return nil }
