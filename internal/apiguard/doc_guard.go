// Package apiguard: the state-changing endpoints' guard in detail (docs/exporter.md summarises it).
//
// The two POST endpoints change state, so they are guarded (`internal/apiguard`):
// off unless `--web.enable-mutations` is given (403 naming the flag); when on,
// every POST must carry the header `X-Walab-Request: 1` — a custom header, which
// a cross-origin HTML form cannot send and a browser sends cross-origin only
// after a CORS preflight that walab never grants — and is refused if the browser
// marks it `Sec-Fetch-Site: cross-site`. A POST must also name, in its `Host`
// header, a loopback host (`localhost`, `127.0.0.0/8`, `[::1]`), a host of
// `--web.listen-address` or a `--web.mutations-host`: a page whose name was
// rebound to 127.0.0.1 (DNS rebinding) is same-origin for the browser and can
// send the custom header, but its requests carry its own name and get 403.
// These checks stop browsers, not the host's other local users. On a shared
// host give `--web.mutations-token-file=PATH`: at start the exporter writes a
// new random token there (mode 0600, its own user's; it replaces only a token
// file of its own and refuses a symlink, FIFO or other file at PATH), and
// every POST must carry it as `X-Walab-Token: <token>` (403 otherwise). The
// runner reads the file as the exporter's user or root, on the exporter's
// host (a two-host plan's `on: db` step runs there, through ssh as root):
// `curl -X POST -H 'X-Walab-Request: 1' -H "X-Walab-Token: $(cat PATH)" ...`.
// Each client has a token bucket of 1/s with a burst of 10
// (429 with `Retry-After` beyond it; each mark costs two fsyncs), so one
// client's flood does not refuse another's run-start; at most 1024 buckets are
// kept. A client is its remote address, except that every loopback address
// (`127.0.0.0/8`, `::1`) is one client and an IPv6 address counts by its /64,
// so rotating the source address buys no new bucket.
// GETs are never limited. When every `--web.listen-address` is a loopback one
// (as `make exporter` starts it), reads need the same `Host` as POSTs:
// `/metrics`, `/api/v1/host` and the landing page answer 403 to any other
// `Host`, since nothing off the machine can reach the exporter and a page
// rebound to 127.0.0.1 would otherwise read the host facts (mysqld PIDs,
// mounts) under its own name. On any other address reads answer every `Host`:
// Prometheus may scrape the exporter by a name the exporter cannot know, and
// whoever can reach the port can read it anyway (use `--web.config.file` to
// restrict it). `--web.config.file` (exporter-toolkit: basic auth,
// TLS) covers every endpoint. `make exporter` (and `make run`'s exporter) listens on 127.0.0.1 with mutations on;
// the default listen address stays `:10131` (all interfaces, the Prometheus
// exporter convention for scraping), which is why the mutations are what is
// off by default.
package apiguard
