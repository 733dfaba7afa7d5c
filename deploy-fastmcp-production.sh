#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Production deployment of the MCP tool servers only (mcp-workflow, mcp-assistant), with the
# compose tool and profile `mcp` of compose/compose.yaml. Needs the stack of deploy-with-workflows.sh.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib/common.sh
. "$ROOT/scripts/lib/common.sh"
# shellcheck source=scripts/lib/env-file.sh
. "$ROOT/scripts/lib/env-file.sh"
# shellcheck source=scripts/lib/compose.sh
. "$ROOT/scripts/lib/compose.sh"

PROFILE=mcp
TOOL_SERVERS=(mcp-workflow mcp-assistant)

usage() {
  cat <<'USAGE'
Usage: sudo -E ./deploy-fastmcp-production.sh [--dry-run] [--env-file PATH] [--timeout SECONDS]

Deploys the MCP tool servers with the compose tool, profile mcp:
  mcp-workflow   DAG management and VM operations   127.0.0.1:8889 (SVC_MCP_WORKFLOW_PORT)
  mcp-assistant  documentation search and chat      127.0.0.1:8890 (SVC_MCP_ASSISTANT_PORT)
They use the database, queues, credentials and SSH settings of the main deployment: run
./deploy-with-workflows.sh first. The tool servers listen on 127.0.0.1 unless
SVC_MCP_BIND_ADDRESS says otherwise; clients authenticate with the API token (SVC_API_TOKEN in
the env file).

Options:
  --dry-run          print the steps without changing anything
  --env-file PATH    env file of the main deployment (default /etc/svc/svc.env)
  --timeout SECONDS  how long to wait for the tool servers to answer (default 600)
  -h, --help         show this help
USAGE
}

TIMEOUT=600
while [ "$#" -gt 0 ]; do
  case "$1" in
    --dry-run) export SVC_DRY_RUN=1 ;;
    --env-file) SVC_ENV_FILE=${2:?--env-file needs a path}; shift ;;
    --timeout) TIMEOUT=${2:?--timeout needs seconds}; shift ;;
    -h | --help) usage; exit 0 ;;
    *) printf 'unknown option: %s\n\n' "$1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
svc_start_checks "$TIMEOUT" "deploy-fastmcp-production.sh"

svc_log "step 1/4: compose tool"
if svc_compose_detect; then
  svc_info "using: ${SVC_COMPOSE[*]}"
elif svc_is_dry_run; then
  svc_warn "no compose tool found (the deployment would stop here); showing the steps with 'docker compose'"
  SVC_COMPOSE=(docker compose)
else
  svc_die "no compose tool: install docker compose or podman compose (scripts/preflight-check.sh --fix)"
fi

svc_log "step 2/4: the main deployment's settings ($SVC_ENV_FILE)"
if [ -f "$SVC_ENV_FILE" ]; then
  svc_info "found"
elif svc_is_dry_run; then
  svc_warn "$SVC_ENV_FILE does not exist: the deployment would stop here (run ./deploy-with-workflows.sh first)"
else
  svc_die "$SVC_ENV_FILE does not exist: run ./deploy-with-workflows.sh first"
fi

svc_log "step 3/4: profile $PROFILE in $SVC_COMPOSE_FILE"
# The compose file must define the profile and both tool servers in it (read-only check, also
# in dry-run mode).
services="" profiles=""
if svc_have "${SVC_COMPOSE[0]}"; then
  profiles=$(svc_compose_services --profiles 2>/dev/null || true)
  services=$(svc_compose_services "$PROFILE" 2>/dev/null || true)
fi
if printf '%s\n' "$profiles" | grep -qx "$PROFILE"; then
  svc_info "profile $PROFILE: defined"
elif svc_is_dry_run; then
  svc_warn "profile $PROFILE is not defined (the deployment would stop here)"
else
  svc_die "profile $PROFILE is not defined in $SVC_COMPOSE_FILE"
fi
for s in "${TOOL_SERVERS[@]}"; do
  if printf '%s\n' "$services" | grep -qx "$s"; then
    svc_info "$s: defined"
  elif svc_is_dry_run; then
    svc_warn "$s: not found in profile $PROFILE (the deployment would stop here)"
  else
    svc_die "$s is not defined in profile $PROFILE of $SVC_COMPOSE_FILE"
  fi
done

svc_log "step 4/4: start the tool servers"
from_source=${BUILD_AI_ASSISTANT_FROM_SOURCE:-$(svc_env_get "$SVC_ENV_FILE" BUILD_AI_ASSISTANT_FROM_SOURCE)}
if [ "${from_source:-true}" = true ]; then
  svc_compose --profile "$PROFILE" build "${TOOL_SERVERS[@]}"
else
  svc_compose --profile "$PROFILE" pull "${TOOL_SERVERS[@]}"
fi
svc_compose --profile "$PROFILE" up -d "${TOOL_SERVERS[@]}"

w_port=${SVC_MCP_WORKFLOW_PORT:-8889}
a_port=${SVC_MCP_ASSISTANT_PORT:-8890}
if svc_is_dry_run; then
  svc_info "would wait up to ${TIMEOUT}s for 127.0.0.1:$w_port and 127.0.0.1:$a_port to answer"
  svc_log "dry run complete: nothing was changed. After a deployment:"
else
  for p in "$w_port" "$a_port"; do
    svc_wait_http "http://127.0.0.1:$p/" "$TIMEOUT" || svc_die "nothing answers on 127.0.0.1:$p; see: $(svc_quote "${SVC_COMPOSE[@]}" -p "$SVC_COMPOSE_PROJECT" logs --tail 50 "${TOOL_SERVERS[@]}")"
  done
  svc_log "deployed"
fi
cat <<EOF
    mcp-workflow:   http://127.0.0.1:$w_port  (MCP over Streamable HTTP)
    mcp-assistant:  http://127.0.0.1:$a_port
    Authentication: bearer token SVC_API_TOKEN from $SVC_ENV_FILE (root only)
EOF
