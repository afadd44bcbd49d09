package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var testBools = map[string]bool{"skip-trx": true, "create-secondary": true}

func TestNormalizeArgs(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		wantErr  string
	}{
		{in: "oltp_read_write run --table_size=100 --tables 2", want: "oltp_read_write run --table-size=100 --tables 2"},
		{in: "x --mysql_host 127.0.0.1 --mysql-port=3307", want: "x --mysql-host 127.0.0.1 --mysql-port=3307"},
		{in: "x --skip_trx=on --create_secondary=off", want: "x --skip-trx --no-create-secondary"},
		{in: "x --skip-trx", want: "x --skip-trx"},
		{in: "x --web.listen-address=127.0.0.1:1 --log.level=debug", want: "x --web.listen-address=127.0.0.1:1 --log.level=debug"},
		{in: "x --mysql-password a_b --rand_type=pareto", want: "x --mysql-password a_b --rand-type=pareto"},
		{in: "x -- --table_size", want: "x -- --table_size"},
		{in: "x --skip_trx=maybe", wantErr: "--skip-trx=maybe: want on or off"},
		// Seed 004's sysbench 0.4 command line, verbatim.
		{in: "--test=fileio --file-num=4 --file-block-size=16384 --file-total-size=4G --file-test-mode=rndrd --file-extra-flags=direct --max-time=300 --max-requests=0 --file-fsync-freq=1 --num-threads=128 --report-interval=1 run",
			want: "fileio run --file-num=4 --file-block-size=16384 --file-total-size=4G --file-test-mode=rndrd --file-extra-flags=direct --time=300 --events=0 --file-fsync-freq=1 --threads=128 --report-interval=1"},
		// Options before the command (sysbench takes them anywhere): the command words move first.
		{in: "--tables=100 --table_size=20 oltp_read_only prepare", want: "oltp_read_only prepare --tables=100 --table-size=20"},
		{in: "--tables 2 oltp_read_only run --threads 4", want: "oltp_read_only run --tables 2 --threads 4"},
		{in: "--test=fileio --test=cpu run", wantErr: "give one test"},
		{in: "--test= run", wantErr: "give one test"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := NormalizeArgs(strings.Fields(tc.in), testBools)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, strings.Join(got, " "))
		})
	}
}

func FuzzNormalizeArgs(f *testing.F) {
	f.Add("--table_size=10 --skip_trx=on x")
	f.Add("-- --a_b=c")
	f.Add("--=")
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Split(s, " ")
		got, err := NormalizeArgs(args, testBools)
		if err != nil {
			return
		}
		// One argument in, at most one out (sysbench-tpcc's --tables=1 is dropped).
		require.LessOrEqual(t, len(got), len(args))
	})
}
