#!/usr/bin/env bash
# Set up a fresh Debian machine for development and run the whole stack in the foreground.
set -euo pipefail
cd "$(dirname "$0")/../.."
export DEBIAN_FRONTEND=noninteractive
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -n "$@"; fi; }

missing=()
for p in postgresql redis-server ansible-core openssh-client; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  as_root apt-get update -qq
  as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# shellcheck source=scripts/lib/pnpm.sh
source scripts/lib/pnpm.sh
ensure_pnpm
if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  for v in /etc/postgresql/*; do as_root pg_ctlcluster --skip-systemctl-redirect "$(basename "$v")" main start || true; done
fi
if ! redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
  as_root redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
fi
pnpm install --frozen-lockfile --reporter=silent
pnpm --silent exec svc-engine db migrate
exec pnpm start
