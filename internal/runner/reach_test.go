package runner

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestReach(t *testing.T) {
	at := func(s int) time.Time { return time.Unix(1000+int64(s), 0) }
	var r reach
	r.connected(at(0))
	r.connected(at(0))
	r.failed(at(1)) // one terminal turned away while another works: reachable
	require.Zero(t, r.unreachable(at(2)))
	r.lost()
	r.lost()
	r.failed(at(3)) // the server died: unreachable from here
	r.failed(at(4))
	require.Equal(t, 2*time.Second, r.unreachable(at(5)), "an open spell counts up to the end")
	r.connected(at(7))
	require.Equal(t, 4*time.Second, r.unreachable(at(9)))
	r.lost()
	r.failed(at(10))
	require.Equal(t, 6*time.Second, r.unreachable(at(12)))
}
