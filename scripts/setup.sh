#!/usr/bin/env bash
# Installs what credprov needs, idempotently: Debian packages, a Node >= 22.18,
# node modules. Heavy artefacts (Node, kube binaries, containerd) are cached
# under $CREDPROV_CACHE_DIR (default ~/.cache/credprov), outside the repo.
# Each job installs only what it uses:
#   scripts/setup.sh            base: the local cluster's and registries' packages, Node, node modules
#   scripts/setup.sh --cluster  also the default kube binaries and containerd (the main job, scripts/run.sh)
#   scripts/setup.sh --kind     also what the kind provider needs on this host: docker.io, mmdebstrap, socat
#   scripts/setup.sh --tests    also what only the project's tests use (scripts/test.sh): chromium, the kind
#                               provider's packages, python3-venv with check-jsonschema and the Kubernetes
#                               Python client; its Go builds are `credprov binaries ensure --for tests`
# The flags combine.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

CLUSTER=0 KIND=0 TESTS=0
for arg in "$@"; do
  case "$arg" in
    --cluster) CLUSTER=1 ;;
    --kind) KIND=1 ;;
    --tests) TESTS=1 KIND=1 ;;
    *) die "unknown flag $arg (scripts/setup.sh [--cluster] [--kind] [--tests])" ;;
  esac
done

# What the local cluster and the test registries run: the main job needs these and no more.
APT_PACKAGES=(docker-registry runc etcd-server containernetworking-plugins busybox-static iptables conntrack ethtool)
# mmdebstrap: the kind node image's Debian root filesystem (src/cluster/kind/node-image/rootfs.ts); socat forwards registries into kind nodes.
KIND_PACKAGES=(mmdebstrap socat)
# chromium: report.html is tested in a real headless browser (src/report/html.test.ts).
# python3-venv: check-jsonschema validates the example GitHub workflows; the Python client and awscli live in venvs.
# The field clients' probes (late builds of `credprov binaries ensure --for tests`): fabric8's is Java built with
# Maven; kube-rs' links Debian's OpenSSL (its cargo and rustc come from rustup: Debian's cargo is too old for kube 5).
TEST_PACKAGES=(chromium python3-venv openjdk-17-jdk-headless maven libssl-dev pkg-config)
CHECK_JSONSCHEMA_VERSION=0.39.0

install_packages() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" -eq 0 ] || die "missing Debian packages (${missing[*]}); run this script as root or install them"
  log "installing Debian packages: ${missing[*]}"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

# The container registry tier's tests start a private dockerd (src/engine/dockerd.ts). Any dockerd
# will do, so a machine with Docker already keeps it (docker-ce and docker.io conflict). Debian's
# docker.io comes without its recommends (needrestart would hook every later apt run) but with
# apparmor, which dockerd needs where the kernel enforces AppArmor. A fresh install is kept from
# starting and its units are disabled: a system dockerd turns on ip_forward and sets the iptables
# FORWARD policy to DROP, and a containerd on /run/containerd/containerd.sock would be adopted by
# every dockerd, the tests' private ones included.
install_docker() {
  if command -v dockerd >/dev/null 2>&1 || [ -x /usr/sbin/dockerd ]; then return 0; fi
  [ "$(id -u)" -eq 0 ] || die "dockerd is missing; run this script as root or apt-get install docker.io"
  log "installing Debian's docker.io (not started: the tests start a private dockerd)"
  local units="docker.service docker.socket" own_policy=
  dpkg-query -W -f='${Status}' containerd 2>/dev/null | grep -q 'install ok installed' || units="$units containerd.service"
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    own_policy=1
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker.io apparmor >/dev/null
  if [ -n "$own_policy" ]; then rm -f /usr/sbin/policy-rc.d; trap - EXIT; fi
  if [ -d /run/systemd/system ]; then
    # shellcheck disable=SC2086
    systemctl disable --now $units >/dev/null 2>&1 || true
  fi
}

install_node() {
  use_node
  node_ok && return 0
  log "installing Node.js $CREDPROV_NODE_VERSION from the npm registry into $CREDPROV_NODE_DIR"
  mkdir -p "$CREDPROV_NODE_DIR"
  # Twice: a registry hiccup once failed a whole CI run here in its first seconds.
  local out="$CREDPROV_NODE_DIR/npm-install.log"
  for attempt in 1 2; do
    if (cd "$CREDPROV_NODE_DIR" && npm install --no-save --no-audit --no-fund --prefix . "node@$CREDPROV_NODE_VERSION" >"$out" 2>&1); then break; fi
    [ "$attempt" = 2 ] && { tail -n 20 "$out" >&2; die "could not install node@$CREDPROV_NODE_VERSION from the npm registry (npm's output above, in $out)"; }
    log "npm install node@$CREDPROV_NODE_VERSION failed; trying once more"
  done
  use_node
  node_ok || die "Node.js in $CREDPROV_NODE_DIR does not run"
}

install_modules() {
  cd "$CREDPROV_ROOT"
  # Reinstall only when the lockfile changed since the last install.
  if [ ! -f node_modules/.package-lock.json ] || ! cmp -s package-lock.json node_modules/.credprov-lock 2>/dev/null; then
    log "installing node modules"
    # Not `npm ci`: the registry reachable here lacks @swc/core's binaries for
    # other platforms, so every lockfile written here lists fewer optional
    # packages than npm ci demands. `npm install` still honours the pinned versions.
    npm install --no-audit --no-fund --loglevel=error >/dev/null
    cp package-lock.json node_modules/.credprov-lock
  fi
}

# check-jsonschema from PyPI in its own venv under the cache: it carries the GitHub workflow schema,
# so validating examples/github-actions/ needs no network at test time.
install_python_tools() {
  local venv="$CREDPROV_CACHE_DIR/pytools"
  if "$venv/bin/check-jsonschema" --version 2>/dev/null | grep -q "version $CHECK_JSONSCHEMA_VERSION\$"; then return 0; fi
  log "installing check-jsonschema $CHECK_JSONSCHEMA_VERSION from PyPI into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv" || die "python3 -m venv failed (apt-get install python3-venv)"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "check-jsonschema==$CHECK_JSONSCHEMA_VERSION" || die "could not install check-jsonschema from PyPI"
}

# The official Kubernetes Python client (`kubernetes` from PyPI) for the client matrix of
# certify exec-plugin and the exec-plugin suites: its own venv, keyed by the version
# src/clients/python-probe/requirements.txt pins (src/clients/python.ts finds it there).
install_python_client() {
  local req="$CREDPROV_ROOT/src/clients/python-probe/requirements.txt"
  local version
  version=$(sed -n 's/^kubernetes==\([^[:space:]]*\)$/\1/p' "$req")
  [ -n "$version" ] || die "$req pins no kubernetes version"
  local venv="$CREDPROV_CACHE_DIR/clients/python-kubernetes-$version"
  if [ "$("$venv/bin/python" -I -c 'import kubernetes; print(kubernetes.__version__)' 2>/dev/null)" = "$version" ]; then return 0; fi
  log "installing the Kubernetes Python client $version from PyPI into $venv"
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  python3 -m venv "$venv" || die "python3 -m venv failed (apt-get install python3-venv)"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req" || { rm -rf "$venv"; die "could not install kubernetes==$version from PyPI"; }
}

wanted=("${APT_PACKAGES[@]}")
[ "$KIND" = 1 ] && wanted+=("${KIND_PACKAGES[@]}")
[ "$TESTS" = 1 ] && wanted+=("${TEST_PACKAGES[@]}")
install_packages "${wanted[@]}"
# The kind provider's engine, and the container registry tier's tests.
[ "$KIND" = 1 ] && install_docker
install_node
install_modules
# rustup's cargo, found where rustup puts it when this shell's PATH lacks it (CI's login environment may not carry it).
check_cargo() {
  command -v cargo >/dev/null 2>&1 || [ -x "$HOME/.cargo/bin/cargo" ] ||
    die "cargo is missing: the kube-rs probe needs Rust 1.85+ from rustup (https://rustup.rs); Debian's cargo is too old for kube 5"
}

if [ "$TESTS" = 1 ]; then
  install_python_tools
  install_python_client
  check_cargo
fi
if [ "$CLUSTER" = 1 ]; then
  cd "$CREDPROV_ROOT"
  node bin/credprov.js binaries ensure
fi
