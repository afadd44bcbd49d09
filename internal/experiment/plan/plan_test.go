package plan

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Parse is Load of a plan without ${NAME} values or check kinds: the
// plan package's tests parse plans without checks.
func Parse(data []byte) (*Plan, error) { return Load(Source{Raw: data}, Kinds{}) }

// expand is the strict text expansion of a plan that is YAML only once
// expanded.
func expand(data []byte, getenv func(string) (string, bool)) ([]byte, error) {
	return expandText(data, getenv, false)
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

func TestExpand(t *testing.T) {
	env := map[string]string{"PORT": "3307", "EMPTY": ""}
	get := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	out, err := expand([]byte("dsn: root@tcp(127.0.0.1:${PORT})/x\nround: ${ROUND:-1m}\ne: '${EMPTY:-no}'\ncmd: echo $WALAB_OUT\n"), get)
	require.NoError(t, err)
	require.Equal(t, "dsn: root@tcp(127.0.0.1:3307)/x\nround: 1m\ne: ''\ncmd: echo $WALAB_OUT\n", string(out))
	_, err = expand([]byte("a: 1\nb: ${MISSING}\n"), get)
	require.EqualError(t, err, "line 2: ${MISSING} is not set and has no default (write ${MISSING:-value})")

	// A default may name another variable: the exporter on the database host.
	out, err = expand([]byte("exporter: ${EXPORTER:-http://${PORT}:10131}\nexec: \"${EXEC:-ssh -p ${SSH:-22} root@x}\"\n"), get)
	require.NoError(t, err)
	require.Equal(t, "exporter: http://3307:10131\nexec: \"ssh -p 22 root@x\"\n", string(out))
	env["EXPORTER"] = "http://set"
	out, err = expand([]byte("exporter: ${EXPORTER:-http://${MISSING}:10131}\n"), get)
	require.NoError(t, err, "a default not taken is not expanded")
	require.Equal(t, "exporter: http://set\n", string(out))
	_, err = expand([]byte("\nexporter: ${OTHER:-http://${MISSING}:10131}\n"), get)
	require.EqualError(t, err, "line 2: ${MISSING} is not set and has no default (write ${MISSING:-value})")
}

// TestPlanErrorsInOneRound: a value that is not a duration stops neither
// the decoding of the rest nor the validation: the plan's other type
// errors and its runs' problems come in the same report (issue 54, a
// residual of issue 42: they came only after the duration was fixed).
func TestPlanErrorsInOneRound(t *testing.T) {
	_, err := Parse([]byte("name: t\nruns:\n  - {name: r, command: \"true\", duration: abc, repeat: x}\n  - {name: q, fio: \"fio --ioengine=net --name=x\"}\n  - {name: s, command: \"true\", duration: 1s}\nprecondition:\n  - {command: \"true\", written: lots}\n"))
	require.Error(t, err)
	for _, want := range []string{`"abc" is not a duration`, "line 4: runs[0] (q): fio: ioengine=net", "line 7: cannot unmarshal !!str `lots`"} {
		require.Contains(t, err.Error(), want)
	}
}
