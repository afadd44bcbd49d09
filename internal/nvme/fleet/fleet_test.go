package fleet

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/nvme/admin"
)

type closer struct {
	closed *int
	err    error
}

func (c closer) Exec(context.Context, admin.Command) (admin.Result, error) {
	return admin.Result{}, errors.New("unused")
}
func (c closer) Close() error { *c.closed++; return c.err }

func TestNSIDs(t *testing.T) {
	tests := []struct {
		name string
		ns   []Namespace
		want []uint32
	}{
		{name: "none", want: []uint32{}},
		{name: "in order", ns: []Namespace{{NSID: 1, Block: "nvme0n1"}, {NSID: 3}}, want: []uint32{1, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, (&Controller{Namespaces: tt.ns}).NSIDs())
		})
	}
}

func TestCloseClosesEveryDevice(t *testing.T) {
	var n int
	f := &Fleet{Controllers: []*Controller{
		{Name: "nvme0", Device: admin.New("nvme0", closer{closed: &n})},
		{Name: "nvme1"}, // never opened
		{Name: "nvme2", Device: admin.New("nvme2", closer{closed: &n, err: errors.New("ebusy")})},
	}}
	require.ErrorContains(t, f.Close(), "ebusy")
	require.Equal(t, 2, n)
	require.NoError(t, (*Fleet)(nil).Close())
}
