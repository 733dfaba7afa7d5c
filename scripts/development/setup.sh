#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Legacy setup entry point, kept for compatibility: maps the older environment variables onto
# the SVC_* settings and runs scripts/development/setup_modernized.sh.
set -euo pipefail

LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")/../lib" && pwd)
# shellcheck source=../lib/common.sh
. "$LIB/common.sh"

printf '%s\n' "NOTE: scripts/development/setup.sh is deprecated and will be removed; use" \
  "      scripts/development/setup_modernized.sh (host install) or ./deploy-with-workflows.sh (containers)." >&2
case "${1:-}" in
  -h | --help)
    cat <<'USAGE'
Usage: sudo -E scripts/development/setup.sh [setup_modernized.sh options]

Runs setup_modernized.sh with the same options. The older environment variables still work:
  SSH_USER, ENV_USERNAME  the SSH user of the workflow engine (SVC_SSH_USER), when that is unset
  DOMAIN                  the lab domain (SVC_DOMAIN), when that is unset
  CICD_PIPELINE=true      non-interactive: every step already is, nothing asks
  OS_PLUGIN               the OS plugin (setup_modernized.sh --plugin), when no --plugin is given
Ignored, with a note: INVENTORY (inventories live in SVC_INVENTORY_DIR), FORWARDER, ACTIVE_BRIDGE,
INTERFACE, and SSH_PASSWORD (SSH uses keys; a password is never read or stored).

USAGE
    exec "$(dirname "${BASH_SOURCE[0]}")/setup_modernized.sh" --help
    ;;
esac

legacy_user=${SSH_USER:-${ENV_USERNAME:-}}
if [ -n "$legacy_user" ] && [ -z "${SVC_SSH_USER:-}" ]; then
  export SVC_SSH_USER=$legacy_user
  svc_info "SVC_SSH_USER=$legacy_user (from the legacy SSH_USER/ENV_USERNAME)"
fi
if [ -n "${DOMAIN:-}" ] && [ -z "${SVC_DOMAIN:-}" ]; then
  export SVC_DOMAIN=$DOMAIN
  svc_info "SVC_DOMAIN=$DOMAIN (from the legacy DOMAIN)"
fi
for v in INVENTORY FORWARDER ACTIVE_BRIDGE INTERFACE SSH_PASSWORD; do
  if [ -n "${!v:-}" ]; then svc_info "$v is set but no longer used (ignored)"; fi
done

args=("$@")
if [ -n "${OS_PLUGIN:-}" ] && [[ " $* " != *" --plugin "* ]]; then args=(--plugin "$OS_PLUGIN" "$@"); fi
exec "$(dirname "${BASH_SOURCE[0]}")/setup_modernized.sh" ${args[@]+"${args[@]}"}
