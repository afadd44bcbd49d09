package release

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
)

// ManPage makes a program's man page from kingpin's --help-man output
// (every command and flag, as --help lists them): the title line gets the
// package's name, the release's date and version (kingpin puts the
// version line there), the NAME line a whatis summary (kingpin gives the
// bare name), and the synopsis the installed command name.
func ManPage(ctx context.Context, bin string, p Program, s Source) ([]byte, error) {
	var out, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "--help-man")
	cmd.Stdout, cmd.Stderr = &out, &stderr
	// loadgen and walab print the page and then exit 2 ("command not
	// specified"); the page is judged by its content below.
	_ = cmd.Run()
	return fixManPage(out.String(), p, s)
}

func fixManPage(page string, p Program, s Source) ([]byte, error) {
	lines := strings.Split(page, "\n")
	// kingpin's title line holds the version text, which is several lines
	// long for walab's binaries: the title runs up to NAME.
	name := slices.Index(lines, `.SH "NAME"`)
	if !strings.HasPrefix(page, ".TH ") || name < 1 || name+1 >= len(lines) || !strings.Contains(page, `.SH "OPTIONS"`) {
		return nil, fmt.Errorf("release: %s --help-man did not print a kingpin man page (%.80q)", p.Name, page)
	}
	title := fmt.Sprintf(`.TH %s 1 "%s" "walab %s" "User Commands"`, strings.ToUpper(p.Command), s.Date.Format("2006-01-02"), s.Version)
	// Left-adjusted, no hyphenation: long flag names and help texts then
	// fill lines without groff's "cannot adjust line" (lintian's groff-message).
	lines = append([]string{title, ".ad l", ".nh"}, lines[name:]...)
	lines[4] = p.Command + ` \- ` + p.Summary
	for i, l := range lines {
		if strings.HasPrefix(l, `\fB`+p.Name+" ") || l == `\fB`+p.Name+`\fR` {
			lines[i] = `\fB` + p.Command + strings.TrimPrefix(l, `\fB`+p.Name)
		}
	}
	body := strings.TrimRight(strings.Join(lines, "\n"), "\n")
	body += "\n.SH \"SEE ALSO\"\n" + p.Command + " --help-long; the reference in " + Homepage + "/tree/main/docs\n"
	return []byte(body), nil
}
