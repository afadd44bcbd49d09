package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"

	"github.com/walab/walab/internal/experiment/plan"
)

// redactor hides passwords in everything the experiment writes or prints:
// a go-sql-driver DSN's password (user:pw@tcp(...)), the value of
// --mysql-password and --password, and the values of the plan's ${NAME}
// references whose name says they are secret (secretName). It is the one
// redaction of the package: step logs, state errors, fingerprints, the
// report and the dry-run use it.
type redactor struct {
	secrets []string // values to hide wherever they appear
}

var (
	// dsnPassword: user:password@ followed by a protocol address or a
	// path (go-sql-driver's DSN); user has no ':', '@', '/', blanks.
	dsnPassword = regexp.MustCompile(`([^\s:@/'"=]*:)\S*@((?:tcp|unix|udp|tcp6|tcp4)?\(|/)`)
	// passwordFlag: --mysql-password and --password with '=' or a blank.
	passwordFlag = regexp.MustCompile(`(--(?:mysql-)?password)(=|\s+)('[^']*'|"[^"]*"|[^\s'"]+)`)
	// secretName: environment variables whose values are secret.
	secretName = regexp.MustCompile(`(?i)(pass|pw|pwd|secret|token|key|cred|auth)`)
)

// minSecret is the shortest secret value that is replaced wherever it
// appears; shorter ones would garble unrelated text (and hide nothing).
const minSecret = 4

const hidden = "***"

func (r redactor) text(s string) string {
	for _, v := range r.secrets {
		if len(v) >= minSecret {
			s = strings.ReplaceAll(s, v, hidden)
		}
	}
	s = dsnPassword.ReplaceAllString(s, "$1"+hidden+"@$2")
	return passwordFlag.ReplaceAllString(s, "$1$2"+hidden)
}

// argv redacts a command line: each argument as text, and the argument
// after a password flag given on its own.
func (r redactor) argv(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = r.text(a)
		if i > 0 && (argv[i-1] == "--mysql-password" || argv[i-1] == "--password") {
			out[i] = hidden
		}
	}
	return out
}

// secretsOf are the values of the ${NAME} references in a plan whose
// names look secret, as src.Getenv gives them (or their defaults).
func secretsOf(src plan.Source) []string {
	var out []string
	names, defaults := plan.EnvRefs(src.Raw)
	for i, name := range names {
		if !secretName.MatchString(name) {
			continue
		}
		v, ok := "", false
		if src.Getenv != nil {
			v, ok = src.Getenv(name)
		}
		if !ok {
			v = defaults[i]
		}
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// expandedSum is the hash of the plan's text, its ${NAME} expanded from
// src.Getenv and its secrets hidden: resume compares it with the one taken
// at the start.
func expandedSum(r redactor, src plan.Source) string {
	text := src.Raw
	if src.Getenv != nil {
		text = plan.ExpandKnown(src.Raw, src.Getenv)
	}
	sum := sha256.Sum256([]byte(r.text(string(text))))
	return hex.EncodeToString(sum[:])
}
