package probe

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/decode"
	"github.com/walab/walab/internal/nvme/replay"
	"github.com/walab/walab/internal/nvme/replay/fixture"
)

// uuidIndexed serves the 0xC0 page only under one UUID index, as a drive
// with several vendor UUIDs does; under any other index it answers with
// another vendor's page (no OCP GUID). It records what was asked for.
type uuidIndexed struct {
	inner   admin.Backend
	ocpIdx  uint8
	mu      sync.Mutex
	c0Index []uint8
	cns     []uint8
}

func (u *uuidIndexed) Exec(ctx context.Context, c admin.Command) (admin.Result, error) {
	u.mu.Lock()
	if c.Opcode == admin.OpIdentify {
		u.cns = append(u.cns, uint8(c.CDW10))
	}
	lid, isLog := c.LogID()
	idx := uint8(c.CDW14 & 0x7f)
	if isLog && lid == 0xC0 {
		u.c0Index = append(u.c0Index, idx)
	}
	u.mu.Unlock()
	if isLog && lid == 0xC0 && idx != u.ocpIdx {
		return admin.Result{Data: make([]byte, c.DataLen)}, nil // another vendor's page under this index
	}
	return u.inner.Exec(ctx, c)
}
func (u *uuidIndexed) Close() error { return nil }

func TestOCPReadUnderItsUUIDIndex(t *testing.T) {
	for _, tt := range []struct {
		name      string
		uuidList  bool
		wantCNS   []uint8
		wantSrc   string
		serveIdx  uint8
		wantReads []uint8
	}{
		{name: "UUID list: OCP is entry 2, read with index 2", uuidList: true, serveIdx: 2,
			wantCNS: []uint8{admin.CNSController, admin.CNSUUIDList, admin.CNSNamespace}, wantSrc: SourceOCP, wantReads: []uint8{2}},
		{name: "no UUID list (CTRATT bit 9 clear): index 0, no CNS 0x17", uuidList: false, serveIdx: 0,
			wantCNS: []uint8{admin.CNSController, admin.CNSNamespace}, wantSrc: SourceOCP, wantReads: []uint8{0}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := fixture.OCPDrive()
			if tt.uuidList {
				d.CTRATT |= 1 << 9
			}
			dir := filepath.Join(t.TempDir(), "nvme0")
			require.NoError(t, d.Write(dir))
			list := make([]byte, admin.IdentifySize)
			copy(list[32+16:], decode.SolidigmUUID[:]) // entry 1
			copy(list[32+32+16:], decode.OCPUUID[:])   // entry 2
			require.NoError(t, os.WriteFile(filepath.Join(dir, "id-uuid.bin"), list, 0o644))

			b := &uuidIndexed{inner: replay.NewBackend(dir), ocpIdx: tt.serveIdx}
			plan, err := Probe(context.Background(), &Reader{Dev: admin.New("nvme0", b)}, []uint32{1}, Config{})
			require.NoError(t, err)
			require.Equal(t, tt.wantSrc, plan.Source, "rejected: %v", plan.Rejected)
			require.Equal(t, tt.wantCNS, b.cns)
			require.Equal(t, tt.wantReads, b.c0Index)
		})
	}
}
