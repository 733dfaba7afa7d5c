#!/usr/bin/env bash
# Set up everything the test suite needs on a fresh Debian machine, then run it.
# Installs only what is missing: Debian packages, pnpm, node modules; starts Postgres, Redis and
# libvirtd when they are not running; builds the cached VM test image; applies migrations.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive

started=$(date +%s)
# Each step with the minutes:seconds since the start, so a slow set-up shows where it went.
log() { local t=$(($(date +%s) - started)); printf '==> [%02d:%02d] %s\n' $((t / 60)) $((t % 60)) "$*"; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -n "$@"; fi; }

# Debian packages: test tools, hypervisor, Ansible, the test image's kernel.
PKGS=(libvirt-daemon-system libvirt-clients qemu-system-x86 qemu-utils virtinst ansible-core ansible-mitogen debootstrap
  openssh-server openssh-client sudo ansible-lint linux-image-cloud-amd64 busybox-static cpio genisoimage nginx
  shellcheck bats docker-compose postgresql redis-server curl ca-certificates dnsmasq-base e2fsprogs chromium docker.io
  umoci skopeo bind9-dnsutils krb5-user ldap-utils postgresql-15-auto-failover openssl)
missing=()
for p in "${PKGS[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  as_root apt-get update -qq
  as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The products' Debian 12 image (every package baked in: guests reach no mirror) builds in the
# background from here on, while node modules are installed and the test image, the offline images,
# the type-check and lint run: it is the longest step of a fresh machine's set-up.
log "building the debian12 product image in the background (cached; log /tmp/svc-debian12-image.log)"
scripts/development/build-debian12-image.sh >/tmp/svc-debian12-image.log 2>&1 &
debian12_pid=$!

# pnpm: corepack first, npm where corepack cannot verify the registry copy.
# shellcheck source=scripts/lib/pnpm.sh
source scripts/lib/pnpm.sh
log "checking pnpm"
ensure_pnpm

# Postgres and Redis, started when not reachable.
if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  log "starting PostgreSQL"
  for v in /etc/postgresql/*; do as_root pg_ctlcluster --skip-systemctl-redirect "$(basename "$v")" main start || true; done
  for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
fi
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  log "starting Redis"
  as_root redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
  for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 ping >/dev/null 2>&1 && break; sleep 1; done
fi

# libvirt for the VM tests (no systemd on CI machines).
if ! virsh -c qemu:///system version >/dev/null 2>&1; then
  log "starting libvirtd"
  if [ -e /dev/kvm ]; then as_root chgrp kvm /dev/kvm 2>/dev/null || true; as_root chmod 660 /dev/kvm 2>/dev/null || true; fi
  pgrep -x virtlogd >/dev/null || as_root virtlogd -d
  pgrep -x libvirtd >/dev/null || as_root libvirtd -d
  for _ in $(seq 1 30); do virsh -c qemu:///system version >/dev/null 2>&1 && break; sleep 1; done
fi

# Docker for the compose suite (no systemd): overlay2 first, vfs where overlay2 cannot mount.
start_dockerd() {
  as_root sh -c "setsid dockerd --storage-driver=$1 >/var/log/svc-dockerd.log 2>&1 </dev/null &"
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && return 0; sleep 1; done
  return 1
}
if ! docker info >/dev/null 2>&1; then
  log "starting dockerd"
  if ! start_dockerd overlay2; then
    if [ -f /var/run/docker.pid ]; then as_root kill "$(cat /var/run/docker.pid)" || true; fi
    sleep 2
    log "overlay2 does not work here; starting dockerd with the vfs storage driver"
    start_dockerd vfs || { tail -n 20 /var/log/svc-dockerd.log >&2; echo "dockerd did not start" >&2; exit 1; }
  fi
fi

log "installing node modules"
pnpm install --frozen-lockfile --reporter=silent

log "building the VM test image (cached)"
scripts/development/build-test-image.sh

log "building the offline container base images (cached)"
as_root bash scripts/build-offline-images.sh

# moto (the AWS emulator the cloud driver tests start on 127.0.0.1) is a Python tool of these
# machines, installed under pyenv: make sure its shims are on PATH for the test processes.
if ! command -v moto_server >/dev/null 2>&1 && [ -x "$HOME/.pyenv/shims/moto_server" ]; then
  export PATH="$HOME/.pyenv/shims:$PATH"
fi
command -v moto_server >/dev/null 2>&1 || log "moto_server is not on PATH: the AWS driver tests will fail (pip install 'moto[server]')"

log "applying database migrations"
pnpm --silent exec svc-engine db migrate

spec="../shared/reference/airflow-2.10-rest-api-v1.yaml"
if [ -z "${AIRFLOW_OPENAPI_SPEC:-}" ] && [ -f "$spec" ]; then export AIRFLOW_OPENAPI_SPEC="$PWD/$spec"; fi

log "type-checking"
pnpm --silent typecheck

log "linting (eslint, prettier, shellcheck)"
pnpm --silent lint

log "waiting for the debian12 product image"
if ! wait "$debian12_pid"; then
  tail -n 30 /tmp/svc-debian12-image.log >&2
  echo "the debian12 image build failed (full log: /tmp/svc-debian12-image.log)" >&2
  exit 1
fi
tail -n 1 /tmp/svc-debian12-image.log

log "running the test suite"
report=$(mktemp)
jest=(pnpm exec jest --ci --maxWorkers=1 --forceExit --json)
# One jest worker per process: VM guests run under software emulation and miss SSH deadlines when a
# second heavy test file loads both cores at the same time.
# --forceExit: a handle a test left open (reported by jest) must not keep CI waiting once every
# test has finished.
set +e
if [ $# -gt 0 ]; then
  "${jest[@]}" --outputFile="$report" "$@"
  rc=$?
  reports=("$report")
else
  # The whole suite: the VM and fault files one at a time (scripts/lib/test-groups.cjs); beside
  # them, in a second line at a lower priority, the rest, then the Docker and deployment files one at
  # a time once those are done. The second line's output follows at the end.
  groups=$(mktemp -d)
  "${jest[@]}" --listTests | node scripts/lib/test-groups.cjs "$groups/serial" "$groups/beside" "$groups/after"
  beside_report=$(mktemp)
  after_report=$(mktemp)
  mapfile -t beside_files <"$groups/beside"
  mapfile -t after_files <"$groups/after"
  mapfile -t serial_files <"$groups/serial"
  (
    nice -n 5 "${jest[@]}" --outputFile="$beside_report" --runTestsByPath "${beside_files[@]}" >"$groups/beside.log" 2>&1
    b=$?
    # (jest given no path would run every file)
    a=0
    echo '{"numPassedTests":0,"numFailedTests":0,"numPendingTests":0}' >"$after_report"
    : >"$groups/after.log"
    if [ ${#after_files[@]} -gt 0 ]; then
      nice -n 5 "${jest[@]}" --outputFile="$after_report" --runTestsByPath "${after_files[@]}" >"$groups/after.log" 2>&1
      a=$?
    fi
    [ "$b" -ne 0 ] && exit "$b"
    exit "$a"
  ) &
  beside_pid=$!
  "${jest[@]}" --outputFile="$report" --runTestsByPath "${serial_files[@]}"
  rc=$?
  wait "$beside_pid"
  beside_rc=$?
  log "the files run beside the VM tests, then after them in the same line (exit $beside_rc):"
  cat "$groups/beside.log" "$groups/after.log"
  [ "$rc" -ne 0 ] || rc=$beside_rc
  reports=("$report" "$beside_report" "$after_report")
fi
set -e
log "test suite ended (exit $rc)"
# shellcheck disable=SC2016 # JavaScript template literal, not shell
node -e 'let p=0,f=0,s=0;for(const a of process.argv.slice(1)){const r=JSON.parse(require("fs").readFileSync(a,"utf8"));p+=r.numPassedTests;f+=r.numFailedTests;s+=r.numPendingTests}console.log(`${p} passed, ${f} failed, ${s} skipped`)' "${reports[@]}" 2>/dev/null || true
exit $rc
