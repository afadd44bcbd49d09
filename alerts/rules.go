package alerts

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"

	"github.com/walab/walab/internal/placement"
	"github.com/walab/walab/internal/promql"
)

// RuleFile is a Prometheus rule file (the subset walab uses; promtool 2.42
// knows no group-level labels, so there are none).
type RuleFile struct {
	Groups []Group `yaml:"groups" json:"groups"`
}

// Group is one rule group.
type Group struct {
	Name  string `yaml:"name" json:"name"`
	Rules []Rule `yaml:"rules" json:"rules"`
}

// Rule is a recording rule (Record) or an alert (Alert).
type Rule struct {
	Record      string            `yaml:"record,omitempty" json:"record,omitempty"`
	Alert       string            `yaml:"alert,omitempty" json:"alert,omitempty"`
	Expr        string            `yaml:"expr" json:"expr"`
	For         string            `yaml:"for,omitempty" json:"for,omitempty"`
	Labels      map[string]string `yaml:"labels,omitempty" json:"labels,omitempty"`
	Annotations map[string]string `yaml:"annotations,omitempty" json:"annotations,omitempty"`
}

// Names of the recording rules other code (dashboards, compare, e2e) uses.
const (
	HostIncrease1h   = "device:walab_nvme_host_written_bytes:increase1h"
	MediaIncrease1h  = "device:walab_nvme_media_written_bytes:increase1h"
	WA1h             = "device:walab_nvme_write_amplification:ratio_increase1h"
	HostIncrease24h  = "device:walab_nvme_host_written_bytes:increase24h"
	MediaIncrease24h = "device:walab_nvme_media_written_bytes:increase24h"
	WA24h            = "device:walab_nvme_write_amplification:ratio_increase24h"
	WARun            = "device:walab_nvme_write_amplification:run"
	// WASteady is SNIA's steady-state test (walab compare's default) on the
	// last 5 hourly WA values, live: 1 steady, 0 not (yet).
	WASteady    = "device:walab_nvme_write_amplification:steady_snia"
	WAReference = "device:walab_nvme_write_amplification:reference"
	WABaseline  = "device:walab_nvme_write_amplification:ratio_increase1h_baseline"
	// Reductions are (reference - WA) / reference: 0.12 is seed 000's 12 %.
	ReductionVsReference = "device:walab_nvme_write_amplification:reduction_vs_reference"
	ReductionVsBaseline  = "device:walab_nvme_write_amplification:reduction_vs_baseline"

	HostRate          = "device:walab_nvme_host_written_bytes:rate5m"
	MediaRate         = "device:walab_nvme_media_written_bytes:rate5m"
	InnoDBRate        = "target:walab_innodb_written_bytes:rate5m"
	LabInnoDBRate     = "lab:walab_innodb_written_bytes:sum_rate5m"
	LabBlockRate      = "lab:walab_blockdev_written_bytes:sum_rate5m"
	LabHostRate       = "lab:walab_nvme_host_written_bytes:sum_rate5m"
	LabMediaRate      = "lab:walab_nvme_media_written_bytes:sum_rate5m"
	LabBlockPerInnoDB = "lab:walab_blockdev_written_bytes_per_walab_innodb_written_bytes:ratio_rate5m"
	LabHostPerBlock   = "lab:walab_nvme_host_written_bytes_per_walab_blockdev_written_bytes:ratio_rate5m"
	LabHostPerInnoDB  = "lab:walab_nvme_host_written_bytes_per_walab_innodb_written_bytes:ratio_rate5m"
	TxnRate           = "target:walab_loadgen_transactions:rate5m"
	// ServerTxnRate is the COMMITs a MySQL target executed per second: the
	// throughput of load walab's loadgen did not drive.
	ServerTxnRate    = "target:walab_mysql_commits:rate5m"
	NewOrderRate     = "target:walab_loadgen_new_order_transactions:rate5m"
	MediaPerTxn      = "lab:walab_nvme_media_written_bytes_per_loadgen_transaction:ratio_rate5m"
	MediaPerNewOrder = "lab:walab_nvme_media_written_bytes_per_loadgen_new_order:ratio_rate5m"
	TxnErrorRatio    = "target:walab_loadgen_transaction_errors:ratio_rate5m"
	// Share of a device's write bytes that carried a stream id or placement
	// handle, counted per command by the placement tracer.
	PlacementRatio = "device:walab_nvme_write_bytes:placement_ratio_rate5m"
	// Busiest core's share of time in softirq / irq, per host.
	SoftirqBusiest = "instance:walab_cpu_softirq_busiest:ratio_rate5m"
	IRQTimeBusiest = "instance:walab_cpu_irq_busiest:ratio_rate5m"
)

// Generate builds the rule file for a validated config.
func Generate(c Config) RuleFile {
	return RuleFile{Groups: []Group{
		{Name: "walab-wa.rules", Rules: waRules(c)},
		{Name: "walab-write-chain.rules", Rules: chainRules(c)},
		{Name: "walab-iostat.rules", Rules: iostatRules(c)},
		{Name: "walab-raid.rules", Rules: raidRules(c)},
		{Name: "walab-raid-latency.rules", Rules: raidLatencyRules()},
		{Name: "walab-fleet.rules", Rules: fleetRules(c)},
		{Name: "walab-wa", Rules: waAlerts(c)},
		{Name: "walab-placement", Rules: placementAlerts(c)},
		{Name: "walab-host", Rules: hostAlerts(c)},
		{Name: "walab-lab", Rules: labAlerts(c)},
		{Name: "walab-raid", Rules: raidAlerts(c)},
	}}
}

func rec(name, expr string) Rule { return Rule{Record: name, Expr: expr} }

func waRules(c Config) []Rule {
	inc := func(metric, window string) string {
		return fmt.Sprintf("sum without (source) (increase(%s[%s]))", metric, window)
	}
	rs := []Rule{
		rec(HostIncrease1h, inc(promql.NVMeHostWrittenBytes, c.WAWindow)),
		rec(MediaIncrease1h, inc(promql.NVMeMediaWrittenBytes, c.WAWindow)),
		// Same window on both sides; the "> 0" drops idle windows instead of dividing by zero.
		rec(WA1h, MediaIncrease1h+" / ("+HostIncrease1h+" > 0)"),
		rec(HostIncrease24h, inc(promql.NVMeHostWrittenBytes, c.WALongWindow)),
		rec(MediaIncrease24h, inc(promql.NVMeMediaWrittenBytes, c.WALongWindow)),
		rec(WA24h, MediaIncrease24h+" / ("+HostIncrease24h+" > 0)"),
		// The exporter keeps the run window itself (it knows the run-start mark).
		rec(WARun, `max without (window) (`+promql.NVMeWriteAmplification+`{window="run"})`),
		rec(WAReference, referenceExpr(c)),
		rec(ReductionVsReference, "1 - "+WA1h+" / on (device) group_left () "+WAReference),
		rec(WASteady, steadyExpr(c.WAWindow)),
	}
	if c.BaselineOffset != "" {
		rs = append(rs,
			rec(WABaseline, WA1h+" offset "+c.BaselineOffset),
			rec(ReductionVsBaseline, "1 - "+WA1h+" / "+WABaseline))
	}
	return rs
}

// referenceExpr turns the configured per-device reference WA into a series
// per device: listed devices first, then the "*" default for every other
// device the exporter reports.
func referenceExpr(c Config) string {
	var parts []string
	for _, d := range sortedKeys(c.ReferenceWA) {
		if d == "*" {
			continue
		}
		parts = append(parts, fmt.Sprintf(`label_replace(vector(%s), "device", %q, "", "")`, num(c.ReferenceWA[d]), d))
	}
	parts = append(parts, fmt.Sprintf("(max by (device) ("+promql.NVMeInfo+") * 0 + %s)", num(c.ReferenceWA["*"])))
	return strings.Join(parts, " or ")
}

func chainRules(c Config) []Rule {
	r := c.RateWindow
	rate := func(sel string) string { return fmt.Sprintf("rate(%s[%s])", sel, r) }
	return []Rule{
		rec(HostRate, "sum without (source) ("+rate(promql.NVMeHostWrittenBytes)+")"),
		rec(MediaRate, "sum without (source) ("+rate(promql.NVMeMediaWrittenBytes)+")"),
		// InnoDB's own bytes: data files (incl. doublewrite) plus redo.
		rec(InnoDBRate, rate(promql.InnoDBDataWrittenBytes)+" + "+rate(promql.InnoDBOSLogWrittenBytes)),
		// One lab is one host, so the chain is summed over the whole lab:
		// block devices are namespaces (nvme0n1), controllers are nvme0
		// (walab_blockdev_info maps one to the other).
		rec(LabInnoDBRate, "sum("+InnoDBRate+")"),
		rec(LabBlockRate, fmt.Sprintf(`sum(rate(`+promql.BlockdevWrittenBytes+`{device=~%q}[%s]))`, c.BlockDevices, r)),
		rec(LabHostRate, "sum("+HostRate+")"),
		rec(LabMediaRate, "sum("+MediaRate+")"),
		rec(LabBlockPerInnoDB, LabBlockRate+" / ("+LabInnoDBRate+" > 0)"),
		rec(LabHostPerBlock, LabHostRate+" / ("+LabBlockRate+" > 0)"),
		rec(LabHostPerInnoDB, LabHostRate+" / ("+LabInnoDBRate+" > 0)"),
		rec(TxnRate, fmt.Sprintf(`sum without (type, outcome) (rate(`+promql.LoadgenTransactions+`{outcome="committed"}[%s]))`, r)),
		rec(ServerTxnRate, fmt.Sprintf(`sum without (command) (rate(`+promql.MySQLCommands+`{command="commit"}[%s]))`, r)),
		rec(NewOrderRate, fmt.Sprintf(`sum without (type, outcome) (rate(`+promql.LoadgenTransactions+`{outcome="committed",type=%q}[%s]))`, c.NewOrderType, r)),
		rec(MediaPerTxn, LabMediaRate+" / (sum("+TxnRate+") > 0)"),
		rec(MediaPerNewOrder, LabMediaRate+" / (sum("+NewOrderRate+") > 0)"),
		// "or ... * 0" gives 0 rather than no series when no error happened yet.
		// One core's seconds in a mode per second is its share of time there.
		rec(PlacementRatio, fmt.Sprintf(`(sum by (instance, job, device) (rate(`+promql.NVMeWriteBytes+`{directive!="none"}[%[1]s])) or sum by (instance, job, device) (rate(`+promql.NVMeWriteBytes+`[%[1]s])) * 0) / (sum by (instance, job, device) (rate(`+promql.NVMeWriteBytes+`[%[1]s])) > 0)`, r)),
		rec(SoftirqBusiest, fmt.Sprintf(`max without (cpu, mode) (rate(`+promql.CPUSeconds+`{mode="softirq"}[%s]))`, r)),
		rec(IRQTimeBusiest, fmt.Sprintf(`max without (cpu, mode) (rate(`+promql.CPUSeconds+`{mode="irq"}[%s]))`, r)),
		rec(TxnErrorRatio, fmt.Sprintf(`(sum without (type, outcome) (rate(`+promql.LoadgenTransactions+`{outcome="error"}[%[1]s])) or sum without (type, outcome) (rate(`+promql.LoadgenTransactions+`[%[1]s])) * 0) / (sum without (type, outcome) (rate(`+promql.LoadgenTransactions+`[%[1]s])) > 0)`, r)),
	}
}

func (c Config) alert(name, severity, expr, forDur, summary, description string) Rule {
	return Rule{
		Alert:  name,
		Expr:   expr,
		For:    forDur,
		Labels: map[string]string{"severity": severity},
		Annotations: map[string]string{
			"summary":     summary,
			"description": description,
			"runbook_url": c.RunbookURL + "#" + strings.ToLower(name),
		},
	}
}

// runExpected is true while a loadgen run whose scenario expects data
// placement (streams, FDP, astream) is going on.
func (c Config) runExpected() string {
	return fmt.Sprintf(`on () (count(`+promql.LoadgenRunInfo+`{scenario=~%q}) > 0)`, c.PlacementScenarios)
}

func waAlerts(c Config) []Rule {
	factor := num(1 + c.RegressionMargin)
	rs := []Rule{
		c.alert("WalabWARegression", "warning",
			fmt.Sprintf("%s > on (device) group_left () (%s * %s)", WA1h, WAReference, factor), c.RegressionFor,
			"Write amplification is above the reference.",
			fmt.Sprintf("Device {{ $labels.device }} on {{ $labels.instance }} wrote {{ $value | printf \"%%.3f\" }} NAND bytes per host byte over the last %s, more than %s x its reference WA.", c.WAWindow, factor)),
		c.alert("WalabWARisingFast", "warning",
			fmt.Sprintf("delta(%s[%s]) > %s", WA1h, c.WARiseWindow, num(c.WARiseLimit)), c.DefaultFor,
			"Write amplification is rising fast.",
			fmt.Sprintf("Hourly WA of {{ $labels.device }} on {{ $labels.instance }} rose by {{ $value | printf \"%%.3f\" }} in %s.", c.WARiseWindow)),
		c.alert("WalabNANDWritesWithoutHostWrites", "info",
			fmt.Sprintf("(sum without (source) (increase("+promql.NVMeMediaWrittenBytes+"[%[1]s])) > 0) and (sum without (source) (increase("+promql.NVMeHostWrittenBytes+"[%[1]s])) == 0)", c.NANDWithoutHostWindow),
			c.DefaultFor,
			"The device writes NAND without host writes.",
			fmt.Sprintf("Device {{ $labels.device }} on {{ $labels.instance }} wrote {{ $value | humanize1024 }}B to NAND in %s with no host writes: background garbage collection, or a wrong counter source.", c.NANDWithoutHostWindow)),
	}
	rs = append(rs, c.alert("WalabNANDSourceDown", "warning",
		promql.NVMeSourceUp+" == 0", c.DefaultFor,
		"The drive's NAND counter source does not read.",
		"The NAND counter source {{ $labels.source }} of {{ $labels.device }} on {{ $labels.instance }} fails (see "+promql.NVMeSourceErrors+"): its WA is absent and these hours have no NAND data for walab compare."))
	if c.BaselineOffset != "" {
		rs = append(rs, c.alert("WalabWARegressionVsBaseline", "warning",
			fmt.Sprintf("%s > %s * %s", WA1h, WABaseline, factor), c.RegressionFor,
			"Write amplification is above the baseline run's at the same hour.",
			fmt.Sprintf("Device {{ $labels.device }} on {{ $labels.instance }} has hourly WA {{ $value | printf \"%%.3f\" }}, more than %s x the WA %s earlier.", factor, c.BaselineOffset)))
	}
	return rs
}

func placementAlerts(c Config) []Rule {
	return []Rule{
		c.alert("WalabPlacementDisabled", "warning",
			`max by (instance, job, device) (`+promql.NVMeDirectiveEnabled+`{directive=~"streams|data_placement"} or `+promql.NVMeFDPEnabled+`) == 0 and `+c.runExpected(), c.PlacementFor,
			"Streams or FDP are expected but disabled.",
			"A placement run is going on, but neither streams nor FDP is enabled on {{ $labels.device }} ({{ $labels.instance }}); the run measures the baseline instead."),
		// FDP write streams count as effective for the collector (the drive
		// can place data), but only raw block writes naming a stream use
		// them: MySQL's files on ext4/xfs still get no placement.
		c.alert("WalabPlacementHintsIneffective", "warning",
			fmt.Sprintf(`(`+promql.PlacementHintsEffective+` == 0 or `+promql.PlacementHintsEffective+`{reason=%q}) and `, placement.ReasonFDPWriteStreams)+c.runExpected(), c.PlacementFor,
			"File write-life hints do not reach the device.",
			"A placement run is going on, but file write hints cannot reach {{ $labels.device }} on {{ $labels.instance }}: {{ $labels.reason }}"+
				`{{ if eq $labels.reason "`+placement.ReasonFDPWriteStreams+`" }} (only raw block-device writes that name a write stream are placed; files on ext4/xfs, such as MySQL's, are not){{ end }}.`),
		c.alert("WalabPlacementNotObserved", "critical",
			fmt.Sprintf("%s < %s and %s", PlacementRatio, num(c.PlacementObservedMin), c.runExpected()), c.PlacementFor,
			"Writes reach the drive without placement.",
			fmt.Sprintf("A placement run is going on, but only {{ $value | humanizePercentage }} of the write bytes the kernel sent to {{ $labels.device }} on {{ $labels.instance }} carried a stream id or placement handle ("+promql.NVMeWriteBytes+", counted per command; placement_observed_min %s): the hint dies between the file and the drive, and the run measures the baseline.", num(c.PlacementObservedMin))),
		c.alert("WalabPlacementDaemonDown", "warning",
			promql.PlacementDaemonRunning+` == 0 and `+c.runExpected(), c.PlacementFor,
			"The placement daemon is not running.",
			"A placement run is going on, but the {{ $labels.daemon }} daemon is not running on {{ $labels.instance }}."),
	}
}

func hostAlerts(c Config) []Rule {
	return []Rule{
		c.alert("WalabIRQConcentrated", "warning",
			fmt.Sprintf(promql.IRQBusiestCPUShare+" > %s", num(c.IRQBusiestShareMax)), c.IRQFor,
			"Interrupts of a device land on one CPU.",
			"{{ $value | humanizePercentage }} of the interrupts of {{ $labels.device }} on {{ $labels.instance }} go to one CPU; check the IRQ affinity and irqbalance."),
		c.alert("WalabSoftirqConcentrated", "warning",
			fmt.Sprintf("%s > %s", SoftirqBusiest, num(c.SoftirqBusiestMax)), c.IRQFor,
			"One core spends most of its time in softirq.",
			"The busiest core of {{ $labels.instance }} spends {{ $value | humanizePercentage }} of its time in softirq (seed 003 found 99.71%): spread NIC/NVMe interrupts over the NUMA node's cores (RPS/RSS, IRQ affinity)."),
		c.alert("WalabIRQOffNUMANode", "warning",
			"max by (instance, job, device) ("+promql.IRQOffNUMANode+") == 1", c.IRQFor,
			"Device interrupts are served off its NUMA node.",
			"At least one interrupt line of {{ $labels.device }} on {{ $labels.instance }} has its effective CPUs off the device's NUMA node."),
		c.alert("WalabFilesystemFilling", "warning",
			fmt.Sprintf(promql.FilesystemUsed+" / ("+promql.FilesystemSize+" > 0) > %[2]s or ("+promql.FilesystemUsed+" / ("+promql.FilesystemSize+" > 0) > %[1]s unless on () (count("+promql.LoadgenRunInfo+") > 0))",
				num(c.FilesystemUsedMax), num(c.FilesystemUsedMaxInRun)), c.DefaultFor,
			"A data filesystem is filling up.",
			"{{ $labels.path }} on {{ $labels.instance }} is {{ $value | humanizePercentage }} full; a full drive changes WA and stops the run."),
		c.alert("WalabInnoDBCheckpointAgeHigh", "warning",
			fmt.Sprintf(promql.InnoDBCheckpointAge+" / ("+promql.InnoDBLogCapacity+" > 0) > %s", num(c.CheckpointAgeMax)), c.DefaultFor,
			"InnoDB checkpoint age is near the redo capacity.",
			"Checkpoint age of {{ $labels.target }} is {{ $value | humanizePercentage }} of the redo log capacity; InnoDB will soon flush synchronously."),
	}
}

func labAlerts(c Config) []Rule {
	return []Rule{
		c.alert("WalabTargetDown", "critical",
			fmt.Sprintf("up{job=~%q} == 0", c.TargetJobs), c.TargetDownFor,
			"A walab scrape target is down.",
			"Prometheus cannot scrape {{ $labels.job }} at {{ $labels.instance }}; WA and load data are missing."),
		c.alert("WalabMySQLDown", "critical",
			promql.MySQLUp+" == 0", c.TargetDownFor,
			"A MySQL target does not answer.",
			"The exporter cannot reach MySQL target {{ $labels.target }}."),
		c.alert("WalabLoadgenErrors", "warning",
			fmt.Sprintf("%s > %s", TxnErrorRatio, num(c.LoadgenErrorRatioMax)), c.DefaultFor,
			"The load generator sees transaction errors.",
			"{{ $value | humanizePercentage }} of the transactions against {{ $labels.target }} fail."),
	}
}

// num prints a float the shortest exact way (3, 1.1, 0.85).
func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// AlertNames lists the alerts of a rule file, sorted.
func (f RuleFile) AlertNames() []string {
	var out []string
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			if r.Alert != "" {
				out = append(out, r.Alert)
			}
		}
	}
	sort.Strings(out)
	return out
}

// steadyExpr is SNIA's steady-state criterion over the last five values of
// the hourly WA (one per WA window): excursion (max - min) at most 20% of
// the mean and the least-squares line's excursion across the window
// (|slope| x 4 steps) at most 10% of the mean, as internal/compare's
// Steady.WindowSteady (alerts' tests check the two agree on one series).
// A window without five values (idle or missing hours) is not steady.
func steadyExpr(window string) string {
	d, err := model.ParseDuration(window)
	if err != nil {
		panic(err) // Validate checked it
	}
	// Five points spaced one window apart, whatever the range's ends (an
	// inclusive start, as in Prometheus 2.x, would take a sixth at an
	// aligned instant): a range a sixtieth of a window short of five.
	span := model.Duration(5*time.Duration(d) - time.Duration(d)/60)
	sub := fmt.Sprintf("%s[%s:%s]", WA1h, span, window)
	return fmt.Sprintf("(max_over_time(%[1]s) - min_over_time(%[1]s) <= bool 0.2 * avg_over_time(%[1]s))"+
		" * (abs(deriv(%[1]s)) * %[2]g <= bool 0.1 * avg_over_time(%[1]s))"+
		" * (count_over_time(%[1]s) == bool 5)", sub, 4*time.Duration(d).Seconds())
}
