package plan

import (
	"testing"

	"github.com/mattn/go-shellwords"
	"github.com/stretchr/testify/require"
)

// TestPrefixReachingSSH: a prefix that reaches ssh through a wrapper
// (timeout, sshpass, env, sudo, autossh) joins its arguments into one remote
// shell line just as ssh does, so the command must reach it as one quoted
// word; a prefix walab cannot classify is refused, naming what to write.
func TestPrefixReachingSSH(t *testing.T) {
	cmd := "cd /data && rm -rf ./*"
	for _, exec := range []string{
		"ssh db", "timeout 60 ssh db", "timeout -k 5 60 ssh db", "sshpass -p x ssh db", "sshpass -f /pw ssh db",
		"env X=1 ssh db", "env -i X=1 /usr/bin/ssh -o BatchMode=yes db", "autossh -M 0 db", "sudo -u walab ssh db",
		"nice -n 5 ssh db", "timeout 60 sshpass -p x env A=b ssh db",
	} {
		p := &Plan{Hosts: &Hosts{DB: &Host{Exec: exec}}}
		argv, err := p.OnHost(HostDB, []string{"/bin/sh", "-c", cmd})
		require.NoError(t, err, exec)
		prefix, _ := shellwords.Parse(exec)
		require.Len(t, argv, len(prefix)+1, "%s: the command is one word after the prefix: %q", exec, argv)
		// What the remote shell runs: its words, re-split, end with the
		// command as one word after /bin/sh -c and the guard.
		remote, err := shellwords.Parse(argv[len(argv)-1])
		require.NoError(t, err)
		require.Equal(t, cmd, remote[len(remote)-1], exec)
		require.Equal(t, []string{"/bin/sh", "-c"}, remote[len(remote)-3:len(remote)-1], exec)
	}
	for _, exec := range []string{"ip netns exec db", "sudo -u mysql", "nsenter -t 1 -n", "env X=1 ip netns exec db", "timeout 60 sudo -E", "timeout 60"} {
		p := &Plan{Hosts: &Hosts{DB: &Host{Exec: exec}}}
		argv, err := p.OnHost(HostDB, []string{"/bin/sh", "-c", cmd})
		require.NoError(t, err, exec)
		require.Equal(t, cmd, argv[len(argv)-1], "%s runs the argv as it is", exec)
	}
	for exec, want := range map[string]string{
		"mytunnel db":          "walab cannot tell whether mytunnel",
		"timeout 60 mytunnel":  "walab cannot tell whether mytunnel",
		"ssh -n db":            "ssh -n",
		"ssh -f db":            "ssh -f",
		"sshpass -p x ssh":     "names no host",
		"sshpass -p x mything": "walab cannot tell whether mything",
	} {
		p := &Plan{Hosts: &Hosts{DB: &Host{Exec: exec}}}
		_, err := p.OnHost(HostDB, []string{"/bin/sh", "-c", cmd})
		require.ErrorContains(t, err, want, exec)
		_, err = Parse([]byte("name: s\nhosts: {db: {exec: '" + exec + "'}}\nreset: [{command: 'true', on: db}]\nruns: [{name: r, command: 'true'}]\n"))
		require.ErrorContains(t, err, want, "validation refuses %s", exec)
	}
	// remote_shell names a prefix walab cannot classify.
	for rs, joined := range map[bool]bool{true: true, false: false} {
		p := &Plan{Hosts: &Hosts{DB: &Host{Exec: "mytunnel db", RemoteShell: &rs}}}
		argv, err := p.OnHost(HostDB, []string{"/bin/sh", "-c", cmd})
		require.NoError(t, err)
		require.Equal(t, joined, argv[len(argv)-1] != cmd)
	}
}

func TestOnHostArgv(t *testing.T) {
	p := &Plan{Hosts: &Hosts{DB: &Host{Exec: "ip netns exec db"}}}
	argv, err := p.OnHost(HostDB, []string{"/bin/sh", "-c", "echo 'x'"})
	require.NoError(t, err)
	require.Equal(t, []string{"ip", "netns", "exec", "db", "/bin/sh", "-c", "echo 'x'"}, argv)
	p.Hosts.DB.Exec = "ssh -o BatchMode=yes db-server"
	argv, err = p.OnHost(HostDB, []string{"/bin/sh", "-c", "echo 'x'"})
	require.NoError(t, err)
	require.Equal(t, []string{"ssh", "-o", "BatchMode=yes", "db-server", p.RemoteLine(Item{Step: &Step{Command: "echo 'x'", On: HostDB}})}, argv)
	argv, err = p.OnHost("", []string{"true"})
	require.NoError(t, err)
	require.Equal(t, []string{"true"}, argv)
	_, err = (&Plan{}).OnHost(HostDB, []string{"true"})
	require.ErrorContains(t, err, "needs hosts.db.exec")
}
