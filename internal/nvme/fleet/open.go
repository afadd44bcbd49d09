package fleet

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"time"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/probe"
	"github.com/walab/walab/internal/nvme/replay"
	"github.com/walab/walab/internal/nvme/sysfs"
)

// Errors of Open that a command line maps to the flag that caused them.
var (
	// ErrSysfsRoot: the sysfs root does not exist or is not a directory.
	ErrSysfsRoot = errors.New("sysfs root is not a directory")
	// ErrSameController: two listed device nodes reach one controller.
	ErrSameController = errors.New("two devices reach the same controller")
)

// Options say where the controllers come from. Exactly one source is used,
// in this order: ReplayDir; Devices; sysfs discovery under SysFS with the
// character devices under DevFS; when discovery finds no controller,
// Fallback (the simulated drive), if set.
type Options struct {
	ReplayDir string   // one replayed controller per subfolder
	Devices   []string // e.g. /dev/nvme0 or /dev/nvme0n1, identity from SysFS
	SysFS     string   // sysfs mount point ("/sys")
	DevFS     string   // devfs mount point ("/dev")
	// Fallback builds the controllers when discovery finds none.
	Fallback func() ([]*Controller, error)

	// Every controller with a device and no Poller gets one from Probe
	// and CacheMaxAge, so every reader shares one cached read per device.
	Probe       probe.Config
	CacheMaxAge time.Duration
	Logger      *slog.Logger // nil: discard
}

// Open builds the fleet. A controller that cannot be opened is in the fleet
// with OpenErr set (exported from sysfs with up=0); only a source that
// cannot be read at all (a missing sysfs root, an unreadable replay root,
// one controller listed twice) is an error.
func Open(o Options) (*Fleet, error) {
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	var ctrls []*Controller
	var err error
	switch {
	case o.ReplayDir != "":
		ctrls, err = replayControllers(o.ReplayDir, logger)
	case len(o.Devices) > 0:
		ctrls, err = explicitControllers(o.Devices, o.SysFS)
	default:
		ctrls, err = discoveredControllers(o.SysFS, o.DevFS)
		if err == nil && len(ctrls) == 0 && o.Fallback != nil {
			ctrls, err = o.Fallback()
		}
	}
	if err != nil {
		return nil, err
	}
	for _, c := range ctrls {
		if c.OpenErr != nil {
			logger.Error("cannot open NVMe controller; exporting its sysfs identity with up=0", "device", c.Name, "err", c.OpenErr)
		}
		if c.Device != nil && c.Poller == nil {
			c.Poller = probe.NewPoller(c.Device, c.NSIDs(), o.Probe, probe.Options{MaxAge: o.CacheMaxAge})
		}
	}
	logger.Info("NVMe fleet", "controllers", len(ctrls))
	return &Fleet{Controllers: ctrls}, nil
}

var idNSFile = regexp.MustCompile(`^id-ns-([0-9]+)\.bin$`)

// replayControllers builds one controller per subfolder of root. A
// subfolder that cannot be read is that controller down (OpenErr), exactly
// as when it fails mid-run; only an unreadable root is an error. An
// identity text file that is refused (a FIFO, a symlink out of the folder,
// a hard link, too large) costs only its label, with a warning.
func replayControllers(root string, logger *slog.Logger) ([]*Controller, error) {
	names, err := replay.Controllers(root)
	if err != nil {
		return nil, err
	}
	var out []*Controller
	for _, name := range names {
		c := &Controller{Name: name, NUMANode: -1}
		if err := replayController(c, filepath.Join(root, name), logger); err != nil {
			c.Device, c.OpenErr = nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func replayController(c *Controller, dir string, logger *slog.Logger) error {
	dev, err := replay.Open(c.Name, dir)
	if err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		to   *string
	}{{replay.FileModel, &c.Model}, {replay.FileSerial, &c.Serial}, {replay.FileFirmware, &c.Firmware}} {
		if *f.to, err = replay.ReadText(dir, f.name); err != nil {
			logger.Warn("replay identity file refused; its label is left empty, the device is served", "device", c.Name, "file", f.name, "err", err)
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		dev.Close()
		return fmt.Errorf("replay %s: %w", c.Name, err)
	}
	for _, e := range ents {
		if m := idNSFile.FindStringSubmatch(e.Name()); m != nil {
			if n, err := strconv.ParseUint(m[1], 10, 32); err == nil && n > 0 {
				c.Namespaces = append(c.Namespaces, Namespace{NSID: uint32(n), Block: fmt.Sprintf("%sn%d", c.Name, n)})
			}
		}
	}
	sort.Slice(c.Namespaces, func(i, j int) bool { return c.Namespaces[i].NSID < c.Namespaces[j].NSID })
	c.Device = dev
	return nil
}

var nsDevice = regexp.MustCompile(`^(nvme[0-9]+)n[0-9]+$`)

func explicitControllers(paths []string, sysRoot string) ([]*Controller, error) {
	var out []*Controller
	seen := map[string]string{}
	for _, p := range paths {
		name := filepath.Base(p)
		ctrlName := name
		if m := nsDevice.FindStringSubmatch(name); m != nil {
			ctrlName = m[1] // admin commands through a namespace node reach its controller
		}
		// Two nodes of one controller would export every series twice and
		// mix their WA samples: refuse at start-up rather than drop series.
		if prev, dup := seen[ctrlName]; dup {
			closeAll(out)
			return nil, fmt.Errorf("%w: %s and %s reach %s: list it once", ErrSameController, prev, p, ctrlName)
		}
		seen[ctrlName] = p
		// The device label is the controller's name everywhere (irq, streams
		// key on it too), whichever node reaches it.
		c := &Controller{Name: ctrlName, NUMANode: -1}
		if s, err := sysfs.Read(sysRoot, ctrlName); err == nil {
			fromSysfs(c, s)
		}
		c.Device, c.OpenErr = admin.OpenIoctl(ctrlName, p)
		out = append(out, c)
	}
	return out, nil
}

func discoveredControllers(sysRoot, devRoot string) ([]*Controller, error) {
	// A sysfs root that does not exist is a mistake (a typo, a container
	// without /sys mounted), not "no NVMe here": serving the fallback
	// instead would pass for a measurement.
	if st, err := os.Stat(sysRoot); err != nil || !st.IsDir() {
		if err == nil {
			err = fmt.Errorf("not a directory")
		}
		return nil, fmt.Errorf("%w: %s: %w", ErrSysfsRoot, sysRoot, err)
	}
	found, err := sysfs.Discover(sysRoot)
	if err != nil {
		return nil, err
	}
	var out []*Controller
	for _, s := range found {
		c := &Controller{Name: s.Name}
		fromSysfs(c, s)
		c.Device, c.OpenErr = admin.OpenIoctl(s.Name, filepath.Join(devRoot, s.Name))
		out = append(out, c)
	}
	return out, nil
}

func fromSysfs(c *Controller, s sysfs.Controller) {
	c.Model, c.Serial, c.Firmware = s.Model, s.Serial, s.Firmware
	c.NUMANode, c.PCIAddress = s.NUMANode, s.PCIAddress
	for _, ns := range s.Namespaces {
		c.Namespaces = append(c.Namespaces, Namespace{NSID: ns.NSID, Block: ns.Block})
	}
}

func closeAll(cs []*Controller) {
	for _, c := range cs {
		if c.Device != nil {
			c.Device.Close()
		}
	}
}
