package report

import (
	"fmt"
	"strings"

	"github.com/walab/walab/internal/experiment/state"
)

// reportUntilSteady writes how each run with until_steady ended, the
// compared runs' first: held (the window's WA and trend), or **not
// steady** at its max.
func reportUntilSteady(b *strings.Builder, runs []state.RunRecord) {
	for _, r := range runs {
		if r.UntilSteady == "" {
			continue
		}
		text := r.UntilSteady
		if strings.HasPrefix(text, "not steady") {
			text = "**not steady**" + strings.TrimPrefix(text, "not steady")
		}
		fmt.Fprintf(b, "- %s (until_steady): %s.\n", r.RunID, text)
	}
}
