package main

import (
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/collector"
	"github.com/walab/walab/internal/exporterapp"
	"github.com/walab/walab/internal/nvme/replay/fixture"
)

// BenchmarkScrape24Devices gathers the registry of a 24-controller replay
// fleet (a mix of every NAND source). "uncached" reads every device on every
// scrape (cache max age 1ns: the cost of a cold scrape, dominated by file
// reads standing in for ioctls); "cached" is the steady state within
// --nvme.cache-max-age.
func BenchmarkScrape24Devices(b *testing.B) {
	kinds := []func() fixture.Drive{fixture.FDPDrive, fixture.OCPDrive, fixture.Seed000Drive, fixture.EnduranceDrive, fixture.SMARTOnlyDrive}
	root := b.TempDir()
	for i := range 24 {
		require.NoError(b, kinds[i%len(kinds)]().Write(filepath.Join(root, fmt.Sprintf("nvme%d", i))))
	}
	for _, bc := range []struct {
		name   string
		maxAge time.Duration
	}{{"uncached", time.Nanosecond}, {"cached", time.Hour}} {
		b.Run(bc.name, func(b *testing.B) {
			for _, name := range collector.Names() {
				require.NoError(b, collector.SetEnabled(name, name == "nvme"))
			}
			o := exporterapp.Options{
				TelemetryPath: "/metrics", ReplayDir: root, CacheMaxAge: bc.maxAge,
				Paths:      collector.Paths{ProcFS: "/proc", SysFS: "/sys", DevFS: "/dev"},
				ConfigFile: writeConfig(b, ""),
			}
			a, err := exporterapp.New(o, slog.New(slog.NewTextHandler(io.Discard, nil)))
			require.NoError(b, err)
			defer a.Close()
			mfs, err := a.Registry().Gather()
			require.NoError(b, err)
			require.NotEmpty(b, mfs)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := a.Registry().Gather(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
