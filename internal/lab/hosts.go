package lab

import (
	"context"
	"database/sql"
	"time"
)

// databaseHost is where the lab's two databases live, and with that what
// the drive's WA measures. Run picks one from Options.SimFS (hostFor) and
// asks no more: fuseHost, a private mariadbd whose datadir is on the
// simulated drive's FUSE filesystem (the WA is MariaDB's own writes), or
// sharedHost, the machine's servers (--no-simfs: the drive runs its
// synthetic MySQL-like mix, which the databases' writes do not reach).
type databaseHost interface {
	// usable refuses the host where it cannot run, before anything starts.
	usable() error
	// claim fixes the host's ports for Run (a private server's free port).
	claim() error
	// databases are the plan's two databases.
	databases() []database
	// open readies the databases before the lab writes its configs and
	// returns the data directories the exporter's host facts describe.
	open(ctx context.Context) ([]string, error)
	// dataDirs are those directories, read without locking anything
	// (ExporterCommand).
	dataDirs(ctx context.Context) ([]string, error)
	// drive is the exporter's sim section, its directories made.
	drive() (string, error)
	// start starts what the host runs once the lab's services are up,
	// adding each process it started to procs (also on failure) for the
	// caller to stop.
	start(ctx context.Context, procs *[]*proc) error
	// close releases the databases' locks; detach removes, once the lab's
	// processes have stopped, what they left behind.
	close()
	detach()
	// growth follows the drive's fill through the runs (fill.go) where
	// the fill is the databases' size, read from the exporter at addr;
	// stop ends the experiment. Nil where the fill is not theirs.
	growth(addr string, round time.Duration, stop func(error)) *growth
	// exporterRole is what the exporter serves; source what the WA is.
	exporterRole() string
	source() string
}

// hostFor is the databases' host o asks for.
func hostFor(o Options) databaseHost {
	if o.SimFS {
		return &fuseHost{o: o, port1: o.MySQLPort1, port2: o.MySQLPort2}
	}
	return &sharedHost{o: o}
}

// sharedHost is --no-simfs: the lab's databases on the machine's servers
// (--mysql.port-*), the drive on its synthetic mix.
type sharedHost struct {
	o Options
	s *session
}

func (h *sharedHost) usable() error { return nil }
func (h *sharedHost) claim() error  { return nil }

func (h *sharedHost) databases() []database {
	return []database{{h.o.MySQLPort1, h.o.DB1}, {h.o.MySQLPort2, h.o.DB2}}
}

// open locks the databases, drops a half-restored one for prepare to load
// again, and reads the servers' data directories.
func (h *sharedHost) open(ctx context.Context) ([]string, error) {
	s, dirs, err := sharedServers(ctx, h.o, h.databases())
	if err != nil {
		return nil, err
	}
	h.s = s
	return dirs, nil
}

func (h *sharedHost) dataDirs(ctx context.Context) ([]string, error) {
	s := &session{servers: map[int]*sql.DB{}} // no locks: only @@datadir is read
	defer s.close()
	return s.dataDirs(ctx, h.databases())
}

func (h *sharedHost) drive() (string, error)                { return simDrive, nil }
func (h *sharedHost) start(context.Context, *[]*proc) error { return nil }

func (h *sharedHost) close() {
	if h.s != nil {
		h.s.close()
		h.s = nil
	}
}

func (h *sharedHost) detach()                                           {}
func (h *sharedHost) growth(string, time.Duration, func(error)) *growth { return nil }
func (h *sharedHost) exporterRole() string                              { return "exporter (the simulated drive)" }

func (h *sharedHost) source() string {
	return "the simulated drive's synthetic MySQL-like mix (--no-simfs), not MariaDB's writes"
}
