package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// seedFact is what each seed (../shared/seeds, Chinese procedures) does,
// read from the seed itself; the docs' attributions are held to it.
type seedFact struct {
	fioLines bool // prints fio command lines
	// twoMachines: the seed says the load runs on a machine of its own
	// (000 §1.1 "服务端和客户端各一台", 003's 压力测试环境 apart from the
	// MySQL环境). 001 runs sysbench on the server (its figure 8: mysql and
	// sysbench share the CPU); 002 and 004 do not say.
	twoMachines bool
	alignment   bool     // 4 KiB partition alignment is a prerequisite (001's condition 1)
	knobs       []string // InnoDB variables the seed tunes itself
	// builtinNAND: walab has a built-in layout for the seed's drive's NAND
	// counter (001's PBlaze4: memblaze_ca_old, unit unconfirmed).
	builtinNAND bool
}

// knobs are the innodb_ variables each seed's text sets (grep -o
// 'innodb_[a-z_]*'), commented-out lines left out.
var seedFacts = map[string]seedFact{
	"000": {twoMachines: true, builtinNAND: true, knobs: strings.Fields(`innodb_adaptive_hash_index innodb_buffer_pool_instances
		innodb_buffer_pool_size innodb_file_per_table innodb_flush_log_at_trx_commit innodb_flush_method innodb_flush_neighbors
		innodb_io_capacity innodb_io_capacity_max innodb_log_buffer_size innodb_log_file_size innodb_log_files_in_group
		innodb_lru_scan_depth innodb_open_files innodb_page_cleaners innodb_purge_threads innodb_read_io_threads
		innodb_spin_wait_delay innodb_sync_spin_loops innodb_use_native_aio innodb_write_io_threads`)},
	"001": {alignment: true, builtinNAND: true, knobs: strings.Fields(`innodb_buffer_pool_instances innodb_buffer_pool_size innodb_doublewrite
		innodb_flush_log_at_trx_commit innodb_flush_method innodb_read_io_threads innodb_write_io_threads`)},
	"002": {fioLines: true, knobs: strings.Fields(`innodb_buffer_pool_dump_at_shutdown innodb_buffer_pool_load_at_startup
		innodb_buffer_pool_size innodb_doublewrite innodb_flush_log_at_trx_commit innodb_read_io_threads innodb_write_io_threads`)},
	"003": {twoMachines: true, knobs: []string{"innodb_spin_wait_delay", "innodb_sync_spin_loops"}},
	"004": {knobs: []string{"innodb_flush_method", "innodb_flush_neighbors", "innodb_io_capacity", "innodb_log_file_size"}},
}

var seedNumber = regexp.MustCompile(`\b00[0-9]\b`)

// seedsIn lists the seed numbers a phrase names ("Seeds 001, 002 and 004").
func seedsIn(s string) []string {
	out := seedNumber.FindAllString(s, -1)
	slices.Sort(out)
	return slices.Compact(out)
}

func seedsWhere(f func(seedFact) bool) []string {
	var out []string
	for n, s := range seedFacts {
		if f(s) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// seedClaim is a way the docs attribute something to seeds: the phrases
// it matches, and whether a phrase naming those seeds is true. all: the
// phrase must name every seed the fact holds for, not only some.
type seedClaim struct {
	name  string
	re    *regexp.Regexp
	holds func(seedFact) bool
	all   bool
}

var seedClaims = []seedClaim{
	{name: "fio lines", re: regexp.MustCompile(`(?i)seeds? [0-9, and]+(?:'s)? fio lines`), holds: func(s seedFact) bool { return s.fioLines }, all: true},
	{name: "two machines", re: regexp.MustCompile(`(?i)seeds? [0-9][^:]{0,150}? uses? two machines`), holds: func(s seedFact) bool { return s.twoMachines }, all: true},
	{name: "alignment", re: regexp.MustCompile("`alignment`[^\n]{0,200}?\\(seed [0-9]+[^)]*\\)"), holds: func(s seedFact) bool { return s.alignment }},
	{name: "built-in NAND layout", re: regexp.MustCompile(`(?i)built[- ]in[^;]{0,200}?seed [0-9]+'s(?: and seed [0-9]+'s)? (?:(?:are|is) )?among them`), holds: func(s seedFact) bool { return s.builtinNAND }},
}

// docsText is the README and every doc, one string per file.
func docsText(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("../docs/*.md")
	require.NoError(t, err)
	out := map[string]string{}
	for _, f := range append(files, "../README.md") {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		// A claim may be wrapped over lines: read each paragraph as one line.
		out[f] = strings.Join(strings.Fields(string(b)), " ")
	}
	return out
}

// TestDocsSeedAttributions: what the README and docs/ say a seed does
// (which seeds have fio lines, which use two machines, whose prerequisite
// alignment is, whose drive walab decodes, which knobs a seed tunes) agrees
// with seedFacts, so that a later doc cannot drift from the seeds.
func TestDocsSeedAttributions(t *testing.T) {
	docs := docsText(t)
	for _, c := range seedClaims {
		for f, text := range docs {
			for _, phrase := range c.re.FindAllString(text, -1) {
				named := seedsIn(phrase)
				for _, n := range named {
					if !c.holds(seedFacts[n]) {
						t.Errorf("%s: %q credits seed %s with %s; the seed has none", f, phrase, n, c.name)
					}
				}
				if want := seedsWhere(c.holds); c.all && !slices.Equal(want, named) {
					t.Errorf("%s: %q: the seeds with %s are %v", f, phrase, c.name, want)
				}
			}
		}
	}
	for f, text := range docs {
		for _, m := range seedKnobs.FindAllStringSubmatch(text, -1) {
			for _, k := range knobName.FindAllStringSubmatch(m[2], -1) {
				if !slices.Contains(seedFacts[m[1]].knobs, k[1]) {
					t.Errorf("%s: %q credits seed %s with %s, which it does not set", f, m[0], m[1], k[1])
				}
			}
		}
	}
}

// seedKnobs: "seed 003's `a`, `b`, read/write I/O threads, `c`" up to the
// list's end; every variable named in it is credited to that seed.
var (
	seedKnobs = regexp.MustCompile("seed ([0-9]+)'s ([^;)]*)")
	knobName  = regexp.MustCompile("`(innodb_[a-z_]+)`")
)

// TestSeedClaimsMatchWhatTheyShould: each claim's pattern finds the
// sentences it is for, true and false, so the test above cannot pass by
// matching nothing.
func TestSeedClaimsMatchWhatTheyShould(t *testing.T) {
	for _, tc := range []struct {
		claim, text string
		named       []string
	}{
		{"fio lines", "Seeds 001, 002 and 004's fio lines as plan runs", []string{"001", "002", "004"}},
		{"fio lines", "Seed 002's fio lines as plan runs", []string{"002"}},
		{"two machines", "Seed 000 §1.1 (and seeds 001 and 002) use two machines: a database host", []string{"000", "001", "002"}},
		{"two machines", "Seed 000 §1.1 and seed 003 (its load-test environment, BenchmarkSQL, is apart from the MySQL environment) use two machines", []string{"000", "003"}},
		{"alignment", "| `alignment` (`targets` or `path`) | every partition starts on a 4 KiB boundary (seed 004); a stack", []string{"004"}},
		{"built-in NAND layout", "a vendor layout (built in for the drive families docs/nvme-decoders.md lists, seed 000's and seed 001's among them; yours in YAML)", []string{"000", "001"}},
	} {
		var c *seedClaim
		for i := range seedClaims {
			if seedClaims[i].name == tc.claim {
				c = &seedClaims[i]
			}
		}
		require.NotNil(t, c, tc.claim)
		m := c.re.FindString(tc.text)
		require.NotEmpty(t, m, "%s does not match %q", tc.claim, tc.text)
		require.Equal(t, tc.named, seedsIn(m))
	}
	m := seedKnobs.FindStringSubmatch("variables (seed 003's `innodb_spin_wait_delay`, `innodb_sync_spin_loops`, read/write I/O threads, `innodb_flush_neighbors`);")
	require.Equal(t, "003", m[1])
	require.Len(t, knobName.FindAllString(m[2], -1), 3, "every knob of the list up to its end")
}
