package cli

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/buildinfo"
)

func TestVersion(t *testing.T) {
	var out, errb bytes.Buffer
	require.Equal(t, 0, Main([]string{"--version"}, &out, &errb))
	require.Equal(t, buildinfo.Get().Print("loadgen")+"\n", errb.String(), "where --help goes")
}
