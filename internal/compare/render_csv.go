package compare

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
)

// WriteCSV writes run, hour, NAND MB, host MB and WA rows for several runs.
func WriteCSV(w io.Writer, runs []Run, tables [][]Hour) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"run_id", "scenario", "hour", "nand_mb", "host_mb", "wa", "missing"}); err != nil {
		return err
	}
	for i, r := range runs {
		for _, h := range tables[i] {
			if h.Missing != "" {
				// Empty figures, never 0: a missing hour is not an idle one.
				if err := cw.Write([]string{csvText(r.ID), csvText(r.Scenario), strconv.Itoa(h.Hour), "", "", "", csvText(h.Missing)}); err != nil {
					return err
				}
				continue
			}
			wa := "" // idle: undefined, not 0
			if h.NonZero() {
				wa = strconv.FormatFloat(h.WA(), 'f', 5, 64)
			}
			rec := []string{csvText(r.ID), csvText(r.Scenario), strconv.Itoa(h.Hour),
				strconv.FormatFloat(h.NANDBytes/MiB, 'f', 3, 64),
				strconv.FormatFloat(h.HostBytes/MiB, 'f', 3, 64), wa, ""}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvText is a text cell, plain (no ESC or other control byte a terminal
// showing the file would obey), that a spreadsheet shows as text: a cell
// starting with =, +, -, @, tab or CR is a formula to Excel and
// LibreOffice (=HYPERLINK(...) from a label), so it gets a leading
// apostrophe.
func csvText(s string) string {
	s = Plain(s)
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
