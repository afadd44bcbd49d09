package plan

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const profilePlan = `name: spin
exporter: http://127.0.0.1:10131
targets: [{name: db, dsn: "root@tcp(127.0.0.1:3306)/tpcc"}]
profile: %s
runs:
  - {name: delay4, command: "true"}
`

// TestProfileKey: profile: is whole seconds up to the exporter's 300 s
// and needs the database host's exporter.
func TestProfileKey(t *testing.T) {
	p, err := Parse([]byte(strings.Replace(profilePlan, "%s", "30s", 1)))
	require.NoError(t, err)
	require.Equal(t, Duration(30e9), p.Profile)
	for _, bad := range []string{"500ms", "301s", "1500ms"} {
		_, err := Parse([]byte(strings.Replace(profilePlan, "%s", bad, 1)))
		require.ErrorContains(t, err, "profile: ", bad)
	}
	_, err = Parse([]byte(strings.Replace(strings.Replace(profilePlan, "%s", "30s", 1), "exporter: http://127.0.0.1:10131\n", "", 1)))
	require.ErrorContains(t, err, "profile: needs the database host's exporter")
}
