package lab

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
)

// A service that answers at its address is not proof that the lab's
// process answers there: a second lab, or a user's own Prometheus, may
// hold the port, the lab's process then fails to bind and exits, and the
// readiness poll gets the foreign service's 200. So the lab checks the
// listening socket's owner: the TCP sockets listening on the port (from
// /proc/net/tcp and tcp6, through prometheus/procfs) must all be open in
// the process it started (/proc/PID/fd). Handing the service a socket the
// lab bound itself would need every service to accept an inherited
// listener, which Prometheus does not.

// listener is a TCP socket in LISTEN state that accepts connections for
// the lab's address: bound to that address or to the wildcard.
type listener struct {
	addr  string // as bound: 0.0.0.0:9090, [::]:9090, 127.0.0.1:9090
	inode uint64
	uid   uint64
}

// tcpListen is the state LISTEN in /proc/net/tcp (include/net/tcp_states.h).
const tcpListen = 0x0A

// listenersOn lists the sockets that accept connections for addr
// (host:port, a loopback IP).
func listenersOn(fs procfs.FS, addr string) ([]listener, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ip := net.ParseIP(host)
	port, err := strconv.ParseUint(p, 10, 16)
	if ip == nil || err != nil {
		return nil, fmt.Errorf("%q: not an IP address and port", addr)
	}
	var out []listener
	for _, read := range []func() (procfs.NetTCP, error){fs.NetTCP, fs.NetTCP6} { //nolint:staticcheck // the inode column is what the check needs
		lines, err := read()
		if err != nil && !strings.Contains(err.Error(), "no such file") {
			return nil, fmt.Errorf("listening sockets: %w", err)
		}
		for _, l := range lines {
			if l.St != tcpListen || l.LocalPort != port || !accepts(l.LocalAddr, ip) {
				continue
			}
			out = append(out, listener{addr: net.JoinHostPort(l.LocalAddr.String(), p), inode: l.Inode, uid: l.UID})
		}
	}
	return out, nil
}

// accepts: a socket bound to bound takes connections to ip.
func accepts(bound, ip net.IP) bool {
	return bound.IsUnspecified() || bound.Equal(ip)
}

// socketInodes are the inodes of the sockets pid holds open.
func socketInodes(fs procfs.FS, pid int) (map[uint64]bool, error) {
	p, err := fs.Proc(pid)
	if err != nil {
		return nil, err
	}
	targets, err := p.FileDescriptorTargets()
	if err != nil {
		return nil, err
	}
	out := map[uint64]bool{}
	for _, t := range targets {
		if s, ok := strings.CutPrefix(t, "socket:["); ok {
			if n, err := strconv.ParseUint(strings.TrimSuffix(s, "]"), 10, 64); err == nil {
				out[n] = true
			}
		}
	}
	return out, nil
}

// ownsListener: every socket listening for addr is pid's, and there is one.
func ownsListener(fs procfs.FS, pid int, name, addr string) error {
	ls, err := listenersOn(fs, addr)
	if err != nil {
		return err
	}
	mine, err := socketInodes(fs, pid)
	if err != nil {
		return fmt.Errorf("%s (pid %d): its sockets: %w", name, pid, err)
	}
	if len(ls) == 0 {
		return fmt.Errorf("%s answers at %s but nothing listens there", name, addr)
	}
	for _, l := range ls {
		if !mine[l.inode] {
			return foreign(name, addr, l)
		}
	}
	return nil
}

// portFree: nothing listens for addr yet.
func portFree(fs procfs.FS, name, addr string) error {
	ls, err := listenersOn(fs, addr)
	if err != nil {
		return err
	}
	if len(ls) > 0 {
		return foreign(name, addr, ls[0])
	}
	return nil
}

func foreign(name, addr string, l listener) error {
	return fmt.Errorf("%s: another process listens on %s (socket inode %d, uid %d), not the lab's %s: "+
		"stop it (a second walab lab?) or give the lab another --%s.listen", addr, l.addr, l.inode, l.uid, name, name)
}
