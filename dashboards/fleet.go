package main

import (
	"github.com/walab/walab/alerts"
	d "github.com/walab/walab/internal/dashboard"
)

// placement is 1 per drive whose streams or FDP directive is enabled, 0 per
// drive where it is not.
const placement = `max by (instance, device) (walab_nvme_directive_enabled{directive=~"streams|data_placement"} or walab_nvme_fdp_enabled)`

// withModel joins a per-drive series to its drive's model and firmware.
func withModel(expr string) string {
	return `(` + expr + `) * on (instance, device) group_left (model, firmware) max by (instance, device, model, firmware) (walab_nvme_info{model=~"$model"})`
}

// fleet is the view across hosts: WA by model and firmware, the drives
// whose WA is highest or rose most, when each drive wears out, and where
// placement is on. docs/fleet.md describes the stack it reads.
func fleet() *d.Builder {
	b := d.New("walab-fleet", "walab / fleet", "fleet")
	b.Variable("model", "Model", "label_values(walab_nvme_info, model)")
	b.Textbox("baseline", "Baseline offset", "1d")
	b.Row("Write amplification across the fleet")
	b.Timeseries("Hourly WA by model and firmware (median, p90)", "none", "Quantiles of the drives' hourly WA ("+alerts.WA1h+") per model and firmware: a firmware whose WA differs from its model's other firmware shows here.", 24,
		d.Q(`quantile by (model, firmware) (0.5, `+withModel(alerts.WA1h)+`)`, "p50 {{model}} {{firmware}}"),
		d.Q(`quantile by (model, firmware) (0.9, `+withModel(alerts.WA1h)+`)`, "p90 {{model}} {{firmware}}"))
	b.Labels("Top 20 drives by hourly WA", "The drives writing the most NAND bytes per host byte over the last hour.", 12,
		d.Q(`topk(20, `+withModel(alerts.WA1h)+`)`, "{{instance}} {{device}} {{model}} {{firmware}}"))
	b.Labels("Top 20 drives by WA change against their own earlier WA", "Hourly WA now minus the same drive's hourly WA $baseline ago (the Baseline offset box, 1d by default): the drives a firmware update, a configuration or schema change made worse. WalabWARegressionVsBaseline alerts on the same comparison with baseline_offset set.", 12,
		d.Q(`topk(20, `+withModel(alerts.WA1h+` - `+alerts.WA1h+` offset $baseline`)+`)`, "{{instance}} {{device}} {{model}} {{firmware}}"))
	b.Row("Endurance")
	b.Labels("Days until 100 % used, soonest 20", "At the last hour's NAND write rate (host write rate x WA): the remaining share of rated wear divided by the share one day of NAND writes uses, taking Percentage Used as proportional to the NAND bytes written so far. Absent for idle drives and drives at 0 % used.", 24,
		d.Q(`bottomk(20, `+withModel(`(1 - walab_nvme_percentage_used_ratio) / ((walab_nvme_percentage_used_ratio > 0) / sum without (source) (walab_nvme_media_written_bytes_total)) / (sum without (source) (rate(walab_nvme_media_written_bytes_total[1h])) > 0) / 86400`)+`)`, "{{instance}} {{device}} {{model}}"))
	b.Timeseries("Percentage used by model (max, median)", "percentunit", "", 24,
		d.Q(`max by (model) (`+withModel(`walab_nvme_percentage_used_ratio`)+`)`, "max {{model}}"),
		d.Q(`quantile by (model) (0.5, `+withModel(`walab_nvme_percentage_used_ratio`)+`)`, "p50 {{model}}"))
	b.Row("Placement")
	b.Stat("Drives with placement on / off", "none", "Drives whose streams or FDP directive is enabled (1) or not (0), from the streams collector.", 24,
		d.Q(`count(`+placement+` == 1)`, "on"), d.Q(`count(`+placement+` == 0)`, "off"))
	return b
}
