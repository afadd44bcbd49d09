package exporterapp

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/prometheus/common/version"
	"github.com/prometheus/exporter-toolkit/web"
)

// Serve runs the exporter until ctx ends: the HTTP server on o.Web, the WA
// sampler on its clock, and a configuration reload on every SIGHUP.
func Serve(ctx context.Context, o Options, logger *slog.Logger) error {
	logger.Info("starting walab exporter", "version", version.Info())
	a, err := New(o, logger)
	if err != nil {
		return err
	}
	defer a.Close()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Registered before anything can answer, so an early SIGHUP never kills the process.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go a.reloadOnHUP(ctx, hup, logger)
	samplerDone := make(chan struct{})
	go func() {
		defer close(samplerDone)
		if a.sampler != nil {
			_ = a.sampler.Run(ctx) // logs its own errors; saves its state when ctx ends
		}
	}()

	srv := &http.Server{Handler: a.handler, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutCtx, done := context.WithTimeout(context.Background(), 5*time.Second)
		defer done()
		_ = srv.Shutdown(shutCtx)
	}()
	err = web.ListenAndServe(srv, o.Web, logger)
	cancel()
	<-samplerDone
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// reloadOnHUP re-reads the configuration on each signal on hup; today that
// switches the simulated drive's placement, so a baseline and a streams
// phase can run back to back without a restart, and re-probes every
// controller.
func (a *App) reloadOnHUP(ctx context.Context, hup <-chan os.Signal, logger *slog.Logger) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			_ = a.Reload(logger) // logs its own outcome
		}
	}
}
