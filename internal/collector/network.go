package collector

import (
	"context"
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/procfs"
)

func init() { Register("network", true, newNetworkCollector) }

// The network collector reads the NICs named in the `irq:` section (one
// list: the interfaces whose queues the IRQ collector follows are the ones
// whose traffic matters), from /proc/net/dev through prometheus/procfs.
var netDescs = []struct {
	desc *prometheus.Desc
	get  func(procfs.NetDevLine) uint64
}{
	{netDesc("receive_bytes_total", "Bytes received by the interface."), func(l procfs.NetDevLine) uint64 { return l.RxBytes }},
	{netDesc("transmit_bytes_total", "Bytes sent by the interface."), func(l procfs.NetDevLine) uint64 { return l.TxBytes }},
	{netDesc("receive_packets_total", "Packets received."), func(l procfs.NetDevLine) uint64 { return l.RxPackets }},
	{netDesc("transmit_packets_total", "Packets sent."), func(l procfs.NetDevLine) uint64 { return l.TxPackets }},
	{netDesc("receive_drop_total", "Received packets dropped (a core too busy in softirq drops here first)."), func(l procfs.NetDevLine) uint64 { return l.RxDropped }},
	{netDesc("transmit_drop_total", "Packets dropped on send."), func(l procfs.NetDevLine) uint64 { return l.TxDropped }},
}

func netDesc(name, help string) *prometheus.Desc {
	return prometheus.NewDesc(Namespace+"_network_"+name,
		help+" From /proc/net/dev, for the interfaces of irq: interfaces.", []string{"device"}, nil)
}

type networkCollector struct {
	fs     procfs.FS
	ifaces []string
}

func newNetworkCollector(env Env) (Collector, error) {
	var cfg irqConfig
	if err := env.Config.Decode("irq", &cfg); err != nil {
		return nil, err
	}
	if err := checkInterfaces(cfg.Interfaces); err != nil {
		return nil, err
	}
	fs, err := procfs.NewFS(env.Paths.ProcFS)
	if err != nil {
		return nil, fmt.Errorf("network: %w", err)
	}
	return &networkCollector{fs: fs, ifaces: cfg.Interfaces}, nil
}

func (c *networkCollector) Update(_ context.Context, ch chan<- prometheus.Metric) error {
	if len(c.ifaces) == 0 {
		return ErrNoData
	}
	nd, err := c.fs.NetDev()
	if err != nil {
		return fmt.Errorf("network: %w", err)
	}
	var errs []error
	for _, name := range c.ifaces {
		l, ok := nd[name]
		if !ok {
			errs = append(errs, fmt.Errorf("network: interface %s is not in /proc/net/dev", name))
			continue
		}
		for _, d := range netDescs {
			ch <- prometheus.MustNewConstMetric(d.desc, prometheus.CounterValue, float64(d.get(l)), name)
		}
	}
	return errors.Join(errs...)
}
