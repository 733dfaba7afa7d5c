#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Set up a fresh Debian machine for development and run the whole stack in the foreground:
# packages, pnpm, node modules, PostgreSQL and Redis, migrations, the host for VM workflows
# (prepare-host.sh), then every service. Idempotent; a second run only starts the stack.
set -euo pipefail
cd "$(dirname "$0")/../.."
export DEBIAN_FRONTEND=noninteractive

if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  cat <<'USAGE'
Usage: bash scripts/development/run-dev.sh [--prepare-only]

Sets up this machine (installs what is missing, starts PostgreSQL and Redis, applies migrations,
prepares the host for VM workflows) and runs every service in the foreground; Ctrl-C stops them.
  --prepare-only   set everything up, then exit instead of starting the stack

Development defaults (set the variable to override): SVC_VM_DEFAULT_IMAGE=debian-test (the small
test image, built once), SVC_VM_DEFAULT_NETWORK=user (user-mode networking, SSH forwarded to
127.0.0.1), SVC_VM_CLI=this checkout's svc-vm.
USAGE
  exit 0
fi

START=$(date +%s)
log() { printf '==> %s\n' "$*"; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -n "$@"; fi; }

missing=()
for p in postgresql redis-server openssh-client curl; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  as_root apt-get update -qq
  as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# shellcheck source=../lib/pnpm.sh
source scripts/lib/pnpm.sh
ensure_pnpm
if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  log "starting PostgreSQL"
  for v in /etc/postgresql/*; do as_root pg_ctlcluster --skip-systemctl-redirect "$(basename "$v")" main start || true; done
  for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
fi
if ! redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
  log "starting Redis"
  as_root redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
fi
log "node modules"
pnpm install --frozen-lockfile --reporter=silent
log "database migrations"
pnpm --silent exec svc-engine db migrate | sed 's/^/    /'

# Development defaults: the test image, user-mode networking, this checkout's VM CLI.
export SVC_VM_DEFAULT_IMAGE=${SVC_VM_DEFAULT_IMAGE:-debian-test}
export SVC_VM_DEFAULT_NETWORK=${SVC_VM_DEFAULT_NETWORK:-user}
export SVC_VM_CLI=${SVC_VM_CLI:-"[\"$PWD/packages/vm/bin/svc-vm\"]"}
bash scripts/development/prepare-host.sh || log "the host is not fully prepared (above): the stack starts, VM workflows may fail"
log "set up in $(($(date +%s) - START)) s"

if [ "${1:-}" = --prepare-only ]; then exit 0; fi
exec pnpm start
