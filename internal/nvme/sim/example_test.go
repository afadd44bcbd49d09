package sim_test

import (
	"context"
	"fmt"
	"time"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/decode"
	"github.com/walab/walab/internal/nvme/sim"
	"github.com/walab/walab/internal/simload"
)

// A 256 MiB drive running the MySQL-like mix for a simulated minute, read
// through the guarded admin.Device like any controller.
func ExampleNew() {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	d, err := sim.New(sim.Config{
		Capacity: 256 << 20, Scale: 1, SpareFactor: 0.1, BlockPages: 64, Rate: 64 << 20,
		Placement: sim.Placement{Streams: true},
		Workload:  simload.Spec{Mix: simload.MySQLMix{BinlogRetainSpace: 0.05}},
	}, sim.WithClock(func() time.Time { return now }))
	if err != nil {
		panic(err)
	}
	dev := admin.New("nvmesim0", d)
	defer dev.Close()

	now = now.Add(time.Minute)
	cmd, _ := admin.GetLogPage(admin.LogPage{LID: 0xC0, NSID: admin.NSIDAll, Len: 512})
	res, err := dev.Submit(context.Background(), cmd)
	if err != nil {
		panic(err)
	}
	ocp, err := decode.ParseOCPSmartExtended(res.Data)
	if err != nil {
		panic(err)
	}
	st := d.Stats()
	fmt.Println(st.Simulated, st.Placement, st.OpenStreams)
	fmt.Println(ocp.PhysicalMediaUnitsWritten.Lo == st.MediaBytes, st.MediaBytes == st.HostBytes+st.GCBytes)
	fmt.Println(st.SimulatedSeconds)
	// Output:
	// true true 5
	// true true
	// 60
}
