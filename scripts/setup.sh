#!/usr/bin/env bash
# Installs and starts what walab's tests and lab need on a fresh Debian machine.
# Idempotent: installs only missing packages, starts MariaDB only if it is down.
# --lab (make run): only the packages marked "lab" in apt-packages.txt, what
# walab lab runs; no MariaDB service (the lab starts its own mariadbd) and no
# Go-built tools. Without root, a missing package stops it with one line.
set -euo pipefail
cd "$(dirname "$0")/.."
lab=no
[[ "${1:-}" == --lab ]] && lab=yes
# WALAB_SETUP_PACKAGES: another package list (the set-up step's own test).
list=${WALAB_SETUP_PACKAGES:-scripts/apt-packages.txt}

# A line "pkg bookworm-backports" in apt-packages.txt: on Debian bookworm the
# package must come from bookworm-backports (its version carries ~bpo); the
# suite is added to APT's sources once. On a newer Debian, its own version.
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
backports_list=/etc/apt/sources.list.d/walab-bookworm-backports.sources
pkgs=() bpo=()
while read -r p rest; do
  [[ -z "$p" || "$p" == \#* ]] && continue
  [[ $lab == yes && " $rest " != *" lab "* ]] && continue
  if [[ " $rest " == *" bookworm-backports "* && "$codename" == bookworm ]]; then
    dpkg-query -W -f='${Version}' "$p" 2>/dev/null | grep -q '~bpo' || bpo+=("$p")
    continue
  fi
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || pkgs+=("$p")
done < "$list"
if ((${#pkgs[@]} + ${#bpo[@]})) && [[ $(id -u) != 0 ]]; then
  missing=("${pkgs[@]}" "${bpo[@]}")
  echo "setup: cannot install ${missing[*]}: apt-get needs root (run: sudo bash scripts/setup.sh${1:+ $1})" >&2
  exit 1
fi
if ((${#bpo[@]})) && ! grep -rqs '^Suites:.*bookworm-backports' /etc/apt/sources.list.d/ && ! grep -qs 'bookworm-backports' /etc/apt/sources.list; then
  # The mirror the machine already uses for bookworm serves its backports.
  mirror=$(awk '/^URIs:/ {u = $2} /^Suites:/ && / bookworm( |$)/ {print u; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
  [[ -n "$mirror" ]] || mirror=$(awk '$1 == "deb" && $3 == "bookworm" {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
  [[ -n "$mirror" ]] || { echo "setup: no APT source for bookworm found to take bookworm-backports from" >&2; exit 1; }
  echo "setup: adding bookworm-backports to APT's sources ($mirror)"
  printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$mirror" > "$backports_list"
fi
if ((${#pkgs[@]} + ${#bpo[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  # Another apt-get (unattended upgrades, a second set-up) holds dpkg's lock:
  # wait for it rather than fail.
  apt_get() { apt-get -o DPkg::Lock::Timeout=600 "$@"; }
  apt_get update -qq
  if ((${#pkgs[@]})); then
    echo "setup: installing ${pkgs[*]}"
    apt_get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
  fi
  if ((${#bpo[@]})); then
    echo "setup: installing ${bpo[*]} from bookworm-backports"
    apt_get install -y -qq --no-install-recommends -t bookworm-backports "${bpo[@]}" >/dev/null
  fi
else
  echo "setup: nothing to install"
fi
[[ $lab == yes ]] && exit 0

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

# The fleet stack (test/fleetstack, bench/fleet.sh): vmagent and vmalert from
# the same module version as victoria-metrics.
for app in vmagent vmalert; do
  if ! command -v "$app" >/dev/null 2>&1 && ! [ -x "$(go env GOPATH)/bin/$app" ]; then
    echo "setup: building $app v1.140.0 from its Go module"
    go install "github.com/VictoriaMetrics/VictoriaMetrics/app/$app@v1.140.0"
  fi
done

# The distributed fleet stack (internal/fleetstack): Thanos, built in its
# module's own directory (its go.mod carries replace directives, which go
# install refuses) with the tags of its .promu.yml, netgo,slicelabels
# (without them `thanos receive` panics). v0.42.4 builds with Go 1.26.0
# (v0.42.5 needs 1.26.10). About 6 minutes cold.
thanos_version=v0.42.4
if ! command -v thanos >/dev/null 2>&1 && ! [ -x "$(go env GOPATH)/bin/thanos" ]; then
  echo "setup: building thanos $thanos_version from its Go module (about 6 minutes)"
  build=$(mktemp -d)
  src=$(cd "$build" && GOFLAGS=-mod=mod go mod download -json "github.com/thanos-io/thanos@$thanos_version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [[ -d "$src" ]] || { echo "setup: go mod download gave no directory for thanos $thanos_version" >&2; exit 1; }
  cp -r "$src/." "$build/src" && chmod -R u+w "$build/src"
  (cd "$build/src" && GOFLAGS=-mod=mod go build -tags netgo,slicelabels -o "$(go env GOPATH)/bin/thanos" ./cmd/thanos)
  rm -rf "$build"
fi
