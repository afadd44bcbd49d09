package driver

import (
	"context"
	"io"
	"net"
	"runtime/debug"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// pingPong runs one-byte round trips over a raw-read connection to a peer
// that answers each after half a millisecond (so the client spends most of
// its time in a read, as a terminal does) for d, and returns the
// connection.
func pingPong(t *testing.T, d time.Duration) *blockingConn {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		peer, err := ln.Accept()
		if err != nil {
			return
		}
		defer peer.Close()
		b := make([]byte, 1)
		for {
			if _, err := io.ReadFull(peer, b); err != nil {
				return
			}
			time.Sleep(500 * time.Microsecond)
			if _, err := peer.Write(b); err != nil {
				return
			}
		}
	}()
	nc, err := BlockingDialer(0, 0, Options{RawReadWait: 100 * time.Millisecond})(context.Background(), "tcp", ln.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close() })
	c := nc.(*blockingConn)
	b := []byte{1}
	for end := time.Now().Add(d); time.Now().Before(end); {
		_, err := c.Write(b)
		require.NoError(t, err)
		_, err = c.Read(b)
		require.NoError(t, err)
	}
	return c
}

// TestRawReadsAreNotPreempted: a terminal that lives in raw reads for
// longer than sysmon's 10 ms limit yields on its own (yieldEvery), so it is
// not preempted by a signal, whose EINTR sends a read through the slow
// wait. Without the yield, 300 ms of this gave 12-18 slow waits (about one
// per 10 ms); with it, none on an idle machine. The bound leaves room for a
// loaded machine that keeps the thread off its CPU past a yield. No
// garbage collection runs meanwhile (its stop-the-world preempts too).
func TestRawReadsAreNotPreempted(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	c := pingPong(t, 300*time.Millisecond)
	require.Less(t, c.slowWaits, 6, "reads interrupted by a preemption signal and waited for through the runtime")
}
