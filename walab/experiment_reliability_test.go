package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExperimentRefusesDevZero: a device as the plan is refused at once,
// not read until memory runs out.
func TestExperimentRefusesDevZero(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 2, run([]string{"experiment", "run", "/dev/zero", "--dry-run"}, &out, &errOut))
	require.Contains(t, errOut.String(), "/dev/zero is a character device: not a regular file")
}
