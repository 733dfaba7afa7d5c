# shellcheck shell=bash
# Shared helpers for the deployment scripts: messages, a dry-run aware command runner, root checks.
# Source this file; it defines functions only and changes nothing.

SVC_DRY_RUN=${SVC_DRY_RUN:-0}

svc_log() { printf '==> %s\n' "$*"; }
svc_info() { printf '    %s\n' "$*"; }
svc_warn() { printf 'WARNING: %s\n' "$*" >&2; }
svc_die() {
  printf 'ERROR: %s\n' "$*" >&2
  exit 1
}
svc_have() { command -v "$1" >/dev/null 2>&1; }
svc_is_dry_run() { [ "$SVC_DRY_RUN" = 1 ]; }

# A command line quoted so that it can be pasted back into a shell.
svc_quote() {
  local out="" a
  for a in "$@"; do out+=" $(printf '%q' "$a")"; done
  printf '%s' "${out# }"
}

# Run a command and show it; in dry-run mode only show it. Never pass secrets as arguments.
svc_run() {
  if svc_is_dry_run; then
    printf '    would run: %s\n' "$(svc_quote "$@")"
    return 0
  fi
  printf '    + %s\n' "$(svc_quote "$@")"
  "$@"
}

# Run a command as root: directly when root, else through non-interactive sudo.
svc_as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -n "$@"; fi
}

# After option parsing in an entry point: check --timeout, announce a dry run, require root otherwise.
svc_start_checks() {
  local timeout=$1 script=$2
  [[ "$timeout" =~ ^[0-9]+$ ]] || svc_die "--timeout needs a number of seconds"
  if svc_is_dry_run; then
    svc_log "dry run: nothing is changed; the steps are printed"
  else
    svc_require_root "$script"
  fi
}

svc_require_root() {
  [ "$(id -u)" -eq 0 ] || svc_die "$1 needs root: run it with sudo -E (the environment is kept)"
}

# Absolute path of the repository (scripts/lib/..).
svc_repo_root() { (cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd); }

# Poll a URL until it answers with a status below 500, or give up after $2 seconds.
svc_wait_http() {
  local url=$1 timeout=$2 waited=0 code
  while [ "$waited" -lt "$timeout" ]; do
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$url" 2>/dev/null || true)
    if [ -n "$code" ] && [ "$code" != 000 ] && [ "$code" -lt 500 ]; then return 0; fi
    sleep 3
    waited=$((waited + 3))
  done
  return 1
}

# Poll a URL until its body matches the extended regex $2, or give up after $3 seconds. A bearer
# token in $4 (optional) goes in a header read from a pipe, never on curl's command line.
svc_wait_http_body() {
  local url=$1 want=$2 timeout=$3 token=${4:-} waited=0
  while [ "$waited" -lt "$timeout" ]; do
    if [ -n "$token" ]; then
      if curl -s --max-time 5 -H @<(printf 'Authorization: Bearer %s\n' "$token") "$url" 2>/dev/null | grep -qE -- "$want"; then return 0; fi
    elif curl -s --max-time 5 "$url" 2>/dev/null | grep -qE -- "$want"; then return 0; fi
    sleep 3
    waited=$((waited + 3))
  done
  return 1
}
