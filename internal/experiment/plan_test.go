package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/golden"
)

// assertGolden compares got with testdata/<name>; -update rewrites it.
func assertGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Assert(t, filepath.Join("testdata", name), got)
}

// TestParseErrorsGolden: every bad plan under testdata/plans gets all its
// errors, with lines, as the user sees them.
func TestParseErrorsGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/plans/*.yml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yml")
		if name == "good" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			_, err = Parse(data)
			require.Error(t, err, "a bad plan must be refused")
			assertGolden(t, "plans/"+name+".err", []byte(err.Error()+"\n"))
		})
	}
}

func TestParseGood(t *testing.T) {
	data, err := os.ReadFile("testdata/plans/good.yml")
	require.NoError(t, err)
	p, err := Parse(data)
	require.NoError(t, err)
	require.Equal(t, "seed000", p.Name)
	require.Len(t, p.Targets, 2)
	require.Equal(t, 12*time.Hour, p.Runs[0].Duration.D())
	require.Equal(t, 12*time.Hour, p.Runs[1].Duration.D())
	require.Equal(t, 2, p.Runs[1].Repeat)
	require.True(t, p.Reset[0].Destructive)
	require.Equal(t, 1.5, p.Precondition[0].Written)
	require.Equal(t, ByteSize(20<<30), p.Checks[4].Bytes)
	require.Equal(t, "warn", p.Checks[3].OnFail)
	require.Equal(t, 28, p.Runs[1].Line)
}

func TestDestructive(t *testing.T) {
	for cmd, want := range map[string]bool{
		"mkfs.xfs -f /dev/nvme0n1":                  true,
		"/sbin/mkfs -t ext4 /dev/sdb":               true,
		"nvme format /dev/nvme0n1":                  true,
		"sudo nvme sanitize /dev/nvme0":             true,
		"dd if=/dev/zero of=/dev/nvme0n1 bs=1M":     true,
		"rm -rf /data":                              true,
		"rm -fr /data":                              true,
		"mysql -e 'drop database x'":                true,
		"blkdiscard /dev/nvme0n1":                   true,
		"tpcc prepare --warehouses 4":               true,
		"nvme dir-send /dev/nvme0n1 -D 0 -O 1 -e 1": false,
		"nvme get-log /dev/nvme0 -i 0xc0":           false,
		"rm /tmp/x.pid":                             false,
		"dd if=/dev/nvme0n1 of=/tmp/x count=1":      false,
		"cp -r /bak/* /data/mysql-1/data":           false,
		"systemctl restart mysqld":                  false,
		"echo mkfsx":                                false,
	} {
		require.Equal(t, want, Destructive(cmd) != "", cmd)
	}
}

// FuzzParse: no input panics or hangs, and an accepted plan satisfies the
// invariants the executor relies on.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/plans/*.yml")
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if len(p.Runs) == 0 || !nameRe.MatchString(p.Name) {
			t.Fatalf("accepted plan without runs or name: %+v", p)
		}
		for _, r := range p.Runs {
			if r.Workload != "" && (len(r.Targets) == 0 || r.Duration.D() < time.Second) {
				t.Fatalf("accepted loadgen run without targets or duration: %+v", r)
			}
		}
		if _, err := Steps(p); err != nil {
			t.Fatalf("accepted plan does not flatten: %v", err)
		}
	})
}

func TestExpand(t *testing.T) {
	env := map[string]string{"PORT": "3307", "EMPTY": ""}
	get := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	out, err := Expand([]byte("dsn: root@tcp(127.0.0.1:${PORT})/x\nround: ${ROUND:-1m}\ne: '${EMPTY:-no}'\ncmd: echo $WALAB_OUT\n"), get)
	require.NoError(t, err)
	require.Equal(t, "dsn: root@tcp(127.0.0.1:3307)/x\nround: 1m\ne: ''\ncmd: echo $WALAB_OUT\n", string(out))
	_, err = Expand([]byte("a: 1\nb: ${MISSING}\n"), get)
	require.EqualError(t, err, "line 2: ${MISSING} is not set and has no default (write ${MISSING:-value})")

	// A default may name another variable: the exporter on the database host.
	out, err = Expand([]byte("exporter: ${EXPORTER:-http://${PORT}:10131}\nexec: \"${EXEC:-ssh -p ${SSH:-22} root@x}\"\n"), get)
	require.NoError(t, err)
	require.Equal(t, "exporter: http://3307:10131\nexec: \"ssh -p 22 root@x\"\n", string(out))
	env["EXPORTER"] = "http://set"
	out, err = Expand([]byte("exporter: ${EXPORTER:-http://${MISSING}:10131}\n"), get)
	require.NoError(t, err, "a default not taken is not expanded")
	require.Equal(t, "exporter: http://set\n", string(out))
	_, err = Expand([]byte("\nexporter: ${OTHER:-http://${MISSING}:10131}\n"), get)
	require.EqualError(t, err, "line 2: ${MISSING} is not set and has no default (write ${MISSING:-value})")
}
