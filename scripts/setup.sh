#!/usr/bin/env bash
# Installs and starts what walab's tests and lab need on a fresh Debian machine.
# Idempotent: installs only missing packages, starts MariaDB only if it is down.
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=()
while read -r p _; do
  [[ -z "$p" || "$p" == \#* ]] && continue
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || pkgs+=("$p")
done < scripts/apt-packages.txt
if ((${#pkgs[@]})); then
  echo "setup: installing ${pkgs[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
fi

# The machine's MariaDB (127.0.0.1:3306, root without password).
if ! mariadb -uroot -h127.0.0.1 -e 'SELECT 1' >/dev/null 2>&1; then
  echo "setup: starting mariadbd"
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd -- --user=mysql || true
  for _ in $(seq 60); do mariadb -uroot -h127.0.0.1 -e 'SELECT 1' >/dev/null 2>&1 && break; sleep 1; done
  mariadb -uroot -h127.0.0.1 -e 'SELECT 1' >/dev/null
fi

# compare (internal/compare): VictoriaMetrics single node, built from its Go
# module, for the verdict read from a second Prometheus-API store. v1.140.0
# builds with Go 1.26 (v1.154.1 needs Go 1.27.2).
if ! command -v victoria-metrics >/dev/null 2>&1 && ! [ -x "$(go env GOPATH)/bin/victoria-metrics" ]; then
  echo "setup: building victoria-metrics v1.140.0 from its Go module (about a minute and a half)"
  go install github.com/VictoriaMetrics/VictoriaMetrics/app/victoria-metrics@v1.140.0
fi
