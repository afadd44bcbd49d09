package cpuprof

import (
	"fmt"
	"io"
	"time"

	"github.com/google/pprof/profile"
)

// SelfCounts sums samples by their leaf function, most first (ties by
// name): what `perf top` shows as self overhead.
func SelfCounts(samples []Sample) []FuncCount {
	m := map[FuncKey]uint64{}
	for _, s := range samples {
		k := FuncKey{Function: Unknown, Module: Unknown}
		if len(s.Frames) > 0 {
			k = FuncKey{s.Frames[0].Function, s.Frames[0].Module}
		}
		m[k] += s.Count
	}
	out := make([]FuncCount, 0, len(m))
	for k, v := range m {
		out = append(out, FuncCount{FuncKey: k, Total: v, Recent: v})
	}
	sortCounts(out, func(c FuncCount) uint64 { return c.Total })
	return out
}

// Profile builds a pprof CPU profile of samples taken at freq Hz over d
// starting at start: sample types samples/count and cpu/nanoseconds (one
// sample stands for 1/freq s), one location per module address, one
// mapping per file and the kernel, and the pid and comm as labels.
func Profile(samples []Sample, freq int, start time.Time, d time.Duration) (*profile.Profile, error) {
	if freq <= 0 {
		return nil, fmt.Errorf("pprof: frequency %d Hz", freq)
	}
	period := int64(time.Second) / int64(freq)
	p := &profile.Profile{
		SampleType:    []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType:    &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:        period,
		TimeNanos:     start.UnixNano(),
		DurationNanos: d.Nanoseconds(),
	}
	b := &builder{p: p, maps: map[string]*profile.Mapping{}, funcs: map[FuncKey]*profile.Function{}, locs: map[locKey]*profile.Location{}}
	for _, s := range samples {
		ps := &profile.Sample{Value: []int64{int64(s.Count), int64(s.Count) * period},
			Label: map[string][]string{"comm": {s.Comm}}, NumLabel: map[string][]int64{"pid": {int64(s.PID)}}}
		for _, f := range s.Frames {
			ps.Location = append(ps.Location, b.location(f))
		}
		p.Sample = append(p.Sample, ps)
	}
	if err := p.CheckValid(); err != nil {
		return nil, fmt.Errorf("pprof: %w", err)
	}
	return p, nil
}

type locKey struct {
	module string
	addr   uint64
}

type builder struct {
	p     *profile.Profile
	maps  map[string]*profile.Mapping
	funcs map[FuncKey]*profile.Function
	locs  map[locKey]*profile.Location
}

func (b *builder) location(f Frame) *profile.Location {
	k := locKey{f.Module + "\x00" + f.Path, f.Addr}
	if l, ok := b.locs[k]; ok {
		return l
	}
	fk := FuncKey{f.Function, f.Module}
	fn, ok := b.funcs[fk]
	if !ok {
		fn = &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: f.Function, SystemName: f.Function, Filename: f.Path}
		b.funcs[fk] = fn
		b.p.Function = append(b.p.Function, fn)
	}
	l := &profile.Location{ID: uint64(len(b.p.Location) + 1), Address: f.Addr, Mapping: b.mapping(f), Line: []profile.Line{{Function: fn}}}
	b.locs[k] = l
	b.p.Location = append(b.p.Location, l)
	return l
}

// mapping is the file's (or the kernel's) mapping; addresses are the
// ELF's, so each spans the whole address space, as pprof allows for
// symbolized profiles.
func (b *builder) mapping(f Frame) *profile.Mapping {
	name := f.Path
	if f.Module == ModuleKernel {
		name = "[kernel.kallsyms]"
	}
	if m, ok := b.maps[name]; ok {
		return m
	}
	m := &profile.Mapping{ID: uint64(len(b.p.Mapping) + 1), File: name, HasFunctions: true}
	b.maps[name] = m
	b.p.Mapping = append(b.p.Mapping, m)
	return m
}

// WriteProfile writes p gzipped, as pprof reads it.
func WriteProfile(w io.Writer, p *profile.Profile) error { return p.Write(w) }
