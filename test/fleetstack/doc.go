// Package fleetstack holds the fleet stack test: a simulated fleet
// (internal/fleetsim) scraped by two sharded vmagents into
// VictoriaMetrics, walab's rules evaluated by vmalert, alerts sent to
// Alertmanager, all on loopback. bench/fleet.sh runs the same stack.
package fleetstack
