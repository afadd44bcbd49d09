package plan

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestParseAliasBomb: a plan whose aliases expand exponentially is refused
// quickly rather than walked.
func TestParseAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 12; i++ {
		b.WriteString("a" + itoa(i) + ": &a" + itoa(i) + " [")
		for j := 0; j < 9; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + itoa(i-1))
		}
		b.WriteString("]\n")
	}
	b.WriteString("runs: *a11\n")
	start := time.Now()
	_, err := Parse([]byte(b.String()))
	if err == nil {
		t.Fatal("alias bomb accepted")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("alias bomb took %s", d)
	}
	t.Log(err)
}

func itoa(i int) string { return strconv.Itoa(i) }
