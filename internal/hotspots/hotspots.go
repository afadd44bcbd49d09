// Package hotspots reads the exporter's CPU profile (pprof, from its
// profile endpoint) into the functions where mysqld spent its CPU, and
// writes seed 003's before/after table: the top functions of each run
// beside the spin-lock knobs and tpmTOTAL. Values in, markdown out; it
// knows no sampler and no experiment.
package hotspots

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// Path is the exporter's profile endpoint: GET ?seconds=N answers a pprof
// CPU profile of the sampled processes over the next N seconds.
const Path = "/debug/walab/profile"

// Func is one function's self samples (its frame was the leaf).
type Func struct {
	Function, Module string
	Samples          int64
}

// Profile is the self samples of one profile by function, most first.
type Profile struct {
	Funcs   []Func
	Total   int64   // every sample
	Seconds float64 // how long it sampled
	// Partial: Funcs holds only the top functions (a run's record), so a
	// function not listed had at most the last one's samples, not none.
	Partial bool
}

// Share is f's fraction of the profile's samples.
func (p Profile) Share(f Func) float64 {
	if p.Total == 0 {
		return 0
	}
	return float64(f.Samples) / float64(p.Total)
}

// Read parses a pprof profile and sums its first sample value (samples)
// by leaf function. A profile whose first sample type is not samples/count
// is refused.
func Read(r io.Reader) (Profile, error) {
	pp, err := profile.Parse(r)
	if err != nil {
		return Profile{}, fmt.Errorf("cpu profile: %w", err)
	}
	if len(pp.SampleType) == 0 || pp.SampleType[0].Type != "samples" || pp.SampleType[0].Unit != "count" {
		return Profile{}, fmt.Errorf("cpu profile: first sample type %v, not samples/count: not the exporter's profile", pp.SampleType)
	}
	sums := map[[2]string]int64{}
	out := Profile{Seconds: float64(pp.DurationNanos) / 1e9}
	for _, s := range pp.Sample {
		k := [2]string{"[unknown]", "[unknown]"}
		if len(s.Location) > 0 && len(s.Location[0].Line) > 0 && s.Location[0].Line[0].Function != nil {
			k[0] = s.Location[0].Line[0].Function.Name
			if m := s.Location[0].Mapping; m != nil {
				k[1] = moduleOf(m.File)
			}
		}
		sums[k] += s.Value[0]
		out.Total += s.Value[0]
	}
	for k, v := range sums {
		out.Funcs = append(out.Funcs, Func{Function: k[0], Module: k[1], Samples: v})
	}
	sort.Slice(out.Funcs, func(i, j int) bool {
		a, b := out.Funcs[i], out.Funcs[j]
		if a.Samples != b.Samples {
			return a.Samples > b.Samples
		}
		if a.Function != b.Function {
			return a.Function < b.Function
		}
		return a.Module < b.Module
	})
	return out, nil
}

// moduleOf names a mapping as the exporter's metrics do: "kernel" or the
// file's base name.
func moduleOf(file string) string {
	if file == "[kernel.kallsyms]" {
		return "kernel"
	}
	for i := len(file) - 1; i >= 0; i-- {
		if file[i] == '/' {
			return file[i+1:]
		}
	}
	return file
}

// Fetch asks the exporter at base (its URL) for a profile of the next
// seconds and returns the raw pprof bytes and their reading.
func Fetch(ctx context.Context, c *http.Client, base string, seconds int) ([]byte, Profile, error) {
	u := strings.TrimSuffix(base, "/") + Path + "?seconds=" + strconv.Itoa(seconds)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, Profile{}, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, Profile{}, fmt.Errorf("cpu profile: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxProfileBytes+1))
	if err != nil {
		return nil, Profile{}, fmt.Errorf("cpu profile: %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, Profile{}, fmt.Errorf("cpu profile: %s: %s: %s", u, resp.Status, strings.TrimSpace(string(b)))
	}
	if len(b) > maxProfileBytes {
		return nil, Profile{}, fmt.Errorf("cpu profile: %s: larger than %d bytes", u, maxProfileBytes)
	}
	p, err := Read(bytes.NewReader(b))
	return b, p, err
}

// maxProfileBytes bounds a profile read from an exporter.
const maxProfileBytes = 64 << 20
