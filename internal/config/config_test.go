package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDecodeSection(t *testing.T) {
	f, err := Parse([]byte("filesystem:\n  paths: [/a, /b]\nother: 3\n"))
	require.NoError(t, err)
	var fs struct {
		Paths []string `yaml:"paths"`
	}
	require.NoError(t, f.Decode("filesystem", &fs))
	require.Equal(t, []string{"/a", "/b"}, fs.Paths)
	require.True(t, f.Has("other"))
	require.ElementsMatch(t, []string{"filesystem", "other"}, f.Sections())
	var none struct{ X int }
	require.NoError(t, f.Decode("absent", &none))
}

func TestDecodeRejectsUnknownKeys(t *testing.T) {
	f, err := Parse([]byte("filesystem:\n  pathz: [/a]\n"))
	require.NoError(t, err)
	var fs struct {
		Paths []string `yaml:"paths"`
	}
	require.ErrorContains(t, f.Decode("filesystem", &fs), "pathz")
}

func TestLoadErrors(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "missing.yml"))
	require.ErrorContains(t, err, "missing.yml")
	p := filepath.Join(t.TempDir(), "bad.yml")
	require.NoError(t, os.WriteFile(p, []byte("a: [unclosed"), 0o600))
	_, err = Load(p)
	require.ErrorContains(t, err, "bad.yml")
}
