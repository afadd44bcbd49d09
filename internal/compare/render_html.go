package compare

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
)

// reportTemplate is the self-contained HTML report: the verdict, the
// checks, the WA chart (embedded PNG), the text of the comparison (tables
// and performance) as walab compare prints it. No script, no external
// resource: it opens from a mail attachment or a CI artifact as it is.
var reportTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>walab compare: {{.Subject}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;max-width:70em;color:#222}
h1{font-size:1.4em}
.verdict{font-size:1.2em;padding:.6em 1em;border-radius:.3em}
.valid{background:#e3f5e1;border:1px solid #5a5}
.invalid{background:#fbe3e3;border:1px solid #c55}
table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}
.pass{color:#161}.FAIL{color:#b11;font-weight:bold}.unknown{color:#777}.warn{color:#a60}
pre{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:.85em}
img{max-width:100%;border:1px solid #ddd}
</style></head><body>
<h1>walab compare: {{.Subject}}, baseline {{.Baseline}} vs candidate {{.Candidate}}</h1>
<p class="verdict {{if .Valid}}valid{{else}}invalid{{end}}">{{.Headline}}</p>
<h2>Checks</h2>
<table><tr><th>status</th><th>check</th><th>detail</th></tr>
{{range .Checks}}<tr><td class="{{.Status}}">{{.Status}}</td><td>{{.Name}}</td><td>{{.Detail}}</td></tr>
{{end}}</table>
<h2>WA per round</h2>
<img alt="WA per round of both runs, the compared rounds shaded" src="data:image/png;base64,{{.PNG}}">
<h2>Tables and performance</h2>
<pre>{{.Text}}</pre>
<p>Written by walab compare. Every figure is also in the JSON output (--json).</p>
</body></html>
`))

// WriteHTML writes the self-contained HTML report of the comparison; a
// comparison that is NOT VALID shows no reduction unless allowInvalid.
func (r *Result) WriteHTML(w io.Writer, allowInvalid bool) error {
	var png bytes.Buffer
	if err := WritePNG(&png, r.ChartSeries()); err != nil {
		return fmt.Errorf("report chart: %w", err)
	}
	var text bytes.Buffer
	if err := r.Write(&text, allowInvalid); err != nil {
		return err
	}
	subject := "device " + r.Device
	if r.Array != "" {
		subject = "array " + r.Array
	}
	return reportTemplate.Execute(w, struct {
		Subject, Baseline, Candidate, Headline, PNG, Text string
		Valid                                             bool
		Checks                                            []Check
	}{subject, r.Runs[0].ID, r.Runs[1].ID, r.Verdict.Headline(r), base64.StdEncoding.EncodeToString(png.Bytes()), text.String(), r.Verdict.Valid, r.Verdict.Checks})
}
