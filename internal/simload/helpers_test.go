package simload

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/walab/walab/internal/simload/rules"
)

func defaultRules(t *testing.T) *rules.Table {
	t.Helper()
	r, err := rules.Compile(rules.Default())
	require.NoError(t, err)
	return r
}
