#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Validate this host before a deployment. Every check runs, whatever the earlier ones found;
# a summary follows, and the exit status is 1 when any check failed.
set -euo pipefail

LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")/lib" && pwd)
# shellcheck source=lib/common.sh
. "$LIB/common.sh"
# shellcheck source=lib/os.sh
. "$LIB/os.sh"
# shellcheck source=lib/ssh.sh
. "$LIB/ssh.sh"
# shellcheck source=lib/env-file.sh
. "$LIB/env-file.sh"
# shellcheck source=lib/compose.sh
. "$LIB/compose.sh"
# shellcheck source=lib/offline-images.sh
. "$LIB/offline-images.sh"
# shellcheck source=lib/preflight-checks.sh
. "$LIB/preflight-checks.sh"
# shellcheck source=lib/preflight-fixes.sh
. "$LIB/preflight-fixes.sh"
# shellcheck source=lib/json.sh
. "$LIB/json.sh"

usage() {
  cat <<'USAGE'
Usage: scripts/preflight-check.sh [--fix] [--dry-run] [--json] [--skip CHECK[,CHECK...]] [--list]

Validates the host for a deployment: OS, RAM, disk, CPU virtualization and /dev/kvm, libvirt,
required commands (ssh, ansible-playbook, virsh, a compose tool), a container engine, free ports
(8080, 8888), SSH to this host with the configured key, DNS resolution. Every check runs; a
summary follows. Exit status 1 when any check fails, 0 otherwise (warnings do not fail).

Options:
  --fix           repair what can be repaired (packages with dnf/apt-get, libvirtd, /dev/kvm
                  group and mode, the SSH key, its authorized_keys entry and the pinned host key)
                  and say what could not be repaired. Needs root.
  --dry-run       with --fix: list the repairs without making them
  --json          print the results as one JSON object on stdout (messages go to stderr):
                  {"checks":[{"id","status":"PASS"|"WARN"|"FAIL","message","fix_hint"}],
                  "skipped":[ids],"summary":{...}}; fix_hint says, for every check that did not
                  pass, what --fix would do or what the operator must do
  --skip LIST     comma-separated check ids not to run (see --list)
  --list          list the check ids (stable: scripts and --skip use them) and exit
  -h, --help      show this help

Environment: SVC_SSH_USER, SVC_SSH_KEY_PATH, SVC_SSH_KNOWN_HOSTS, SVC_SSH_PORT (SSH check),
SVC_ASSISTANT_PUBLISHED_PORT (8080), SVC_WEB_UI_PUBLISHED_PORT (8888), SVC_DATA_DIR (disk check,
default /var/lib), SVC_PREFLIGHT_DNS_NAMES (names to resolve, default: this host's name and
registry-1.docker.io), SVC_ENV_FILE (read for SVC_SSH_* when present; default /etc/svc/svc.env).
USAGE
}

FIX=0 JSON=0 SKIP=","
while [ "$#" -gt 0 ]; do
  case "$1" in
    --fix) FIX=1 ;;
    --dry-run) export SVC_DRY_RUN=1 ;;
    --json) JSON=1 ;;
    --skip)
      [ "$#" -ge 2 ] || svc_die "--skip needs a list of check names"
      SKIP=",$2,"
      shift
      ;;
    --skip=*) SKIP=",${1#--skip=}," ;;
    --list) printf '%s\n' "${PF_CHECKS[@]}"; exit 0 ;;
    -h | --help) usage; exit 0 ;;
    *) printf 'unknown option: %s\n\n' "$1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done

# A misspelt id would silently run the check it meant to skip.
IFS=, read -r -a skip_ids <<<"${SKIP#,}"
for id in ${skip_ids[@]+"${skip_ids[@]}"}; do
  [ -z "$id" ] || [[ " ${PF_CHECKS[*]} " == *" $id "* ]] || {
    printf 'unknown check id for --skip: %s (known: %s)\n' "$id" "${PF_CHECKS[*]}" >&2
    exit 2
  }
done

if [ "$FIX" = 1 ] && ! svc_is_dry_run && [ "$(id -u)" -ne 0 ]; then
  svc_die "--fix needs root (run with sudo -E), or add --dry-run to list the repairs"
fi

# With --json, stdout carries only the JSON document; everything else goes to stderr.
if [ "$JSON" = 1 ]; then exec 3>&1 1>&2; fi

# The deployment's SSH settings, when a deployment already wrote them.
for key in SVC_SSH_USER SVC_SSH_KEY_PATH SVC_SSH_KNOWN_HOSTS SVC_SSH_PORT; do
  if [ -z "${!key:-}" ] && svc_env_has "$SVC_ENV_FILE" "$key" 2>/dev/null; then
    export "$key=$(svc_env_get "$SVC_ENV_FILE" "$key")"
  fi
done

PASS=0 WARN=0 FAIL=0 SKIPPED=0
RESULT_NAMES=() RESULT_STATUS=() RESULT_MSG=() RESULT_HINT=() FIXED=() NOT_FIXED=()

record() {
  local name=$1 status=$2 msg=$3 hint=""
  case "$status" in warn | fail) hint=$(pf_fix_hint "$name") ;; esac
  RESULT_NAMES+=("$name")
  RESULT_STATUS+=("$status")
  RESULT_MSG+=("$msg")
  RESULT_HINT+=("$hint")
  # Plain assignments: an arithmetic command like (( x++ )) returns 1 when x was 0, which stops
  # a script under set -e.
  case "$status" in
    pass) PASS=$((PASS + 1)) ;;
    warn) WARN=$((WARN + 1)) ;;
    fail) FAIL=$((FAIL + 1)) ;;
    skip) SKIPPED=$((SKIPPED + 1)) ;;
  esac
  printf '[%s] %-20s %s\n' "$(printf '%s' "$status" | tr '[:lower:]' '[:upper:]')" "$name" "$msg"
  if [ -n "$hint" ]; then printf '       %-20s fix: %s\n' "" "$hint"; fi
}

run_one() {
  local name=$1 fn=pf_check_${1//-/_}
  if [[ "$SKIP" == *",$name,"* ]]; then
    record "$name" skip "skipped (--skip)"
    return 0
  fi
  PF_STATUS=fail PF_MSG="the check stopped before reporting"
  # Called in a condition so that an unexpected error inside one check cannot stop the others.
  "$fn" || true
  if [ "$FIX" = 1 ] && [ "$PF_STATUS" != pass ] && declare -F "pf_fix_${1//-/_}" >/dev/null; then
    local before_status=$PF_STATUS before_msg=$PF_MSG
    printf '    fixing %s: %s\n' "$name" "$PF_MSG"
    PF_FIX_NOTE=""
    if "pf_fix_${1//-/_}"; then
      if svc_is_dry_run; then
        FIXED+=("$name")
        PF_STATUS=$before_status PF_MSG=$before_msg
      else
        PF_STATUS=fail PF_MSG="the check stopped before reporting"
        "$fn" || true
        if [ "$PF_STATUS" = pass ]; then FIXED+=("$name"); else NOT_FIXED+=("$name: $PF_MSG"); fi
      fi
    else
      NOT_FIXED+=("$name: ${PF_FIX_NOTE:-$before_msg}")
    fi
  elif [ "$FIX" = 1 ] && [ "$PF_STATUS" = fail ]; then
    NOT_FIXED+=("$name: cannot be repaired by this script: $PF_MSG")
  fi
  record "$name" "$PF_STATUS" "$PF_MSG"
}

svc_log "preflight checks on $(hostname) ($(svc_os_name || true))"
if [ "$FIX" = 1 ]; then
  if svc_is_dry_run; then svc_info "mode: --fix --dry-run (repairs are listed, nothing is changed)"; else svc_info "mode: --fix"; fi
fi
for check in "${PF_CHECKS[@]}"; do run_one "$check"; done

printf '\nSummary: %d passed, %d warnings, %d failed, %d skipped (%d checks)\n' "$PASS" "$WARN" "$FAIL" "$SKIPPED" "${#RESULT_NAMES[@]}"
if [ "$FIX" = 1 ]; then
  done_label=repaired
  svc_is_dry_run && done_label="would repair (steps listed above)"
  for f in ${FIXED[@]+"${FIXED[@]}"}; do printf '  %s: %s\n' "$done_label" "$f"; done
  for f in ${NOT_FIXED[@]+"${NOT_FIXED[@]}"}; do printf '  not repaired: %s\n' "$f"; done
fi

if [ "$JSON" = 1 ]; then
  pf_json_report >&3
fi
[ "$FAIL" -eq 0 ]
