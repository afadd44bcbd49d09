package report

import "strings"

// fenced is text as a Markdown code block whose fence is longer than any
// run of backticks in it, so that no text (a label holding "```", a plan's
// command substitution) closes the block and injects Markdown.
func fenced(text, lang string) string {
	longest, run := 0, 0
	for _, c := range text {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + f + "\n"
}

// codeSpan is s as inline code that no backtick in s ends early.
func codeSpan(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	f := "`"
	for strings.Contains(s, f) {
		f += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return f + s + f
}
