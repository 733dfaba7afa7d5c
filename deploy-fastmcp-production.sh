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
# shellcheck source=scripts/lib/deploy-steps.sh
. "$ROOT/scripts/lib/deploy-steps.sh"
# shellcheck source=scripts/lib/deploy-options.sh
. "$ROOT/scripts/lib/deploy-options.sh"

PROFILE=mcp
TOOL_SERVERS=(mcp-workflow mcp-assistant)

usage() {
  cat <<'USAGE'
Usage: sudo -E ./deploy-fastmcp-production.sh [--yes] [--dry-run] [--env-file PATH] [--timeout SECONDS]

Deploys the MCP tool servers with the compose tool, profile mcp:
  mcp-workflow   DAG management and VM operations   127.0.0.1:8889 (SVC_MCP_WORKFLOW_PORT)
  mcp-assistant  documentation search and chat      127.0.0.1:8890 (SVC_MCP_ASSISTANT_PORT)
They use the database, queues, credentials and SSH settings of the main deployment: run
./deploy-with-workflows.sh first. The tool servers listen on 127.0.0.1 unless
SVC_MCP_BIND_ADDRESS says otherwise; clients send the bearer token SVC_MCP_TOKEN (generated into
the env file when missing) to /mcp (Streamable HTTP). A second run changes nothing.

Options:
  -y, --yes          do not ask before deploying (also when CI is set)
  --dry-run          print the steps without changing anything
  --env-file PATH    env file of the main deployment (default /etc/svc/svc.env)
  --timeout SECONDS  how long to wait for the tool servers to answer (default 600)
  -h, --help         show this help
USAGE
}

TIMEOUT=600 YES=0
svc_deploy_options deploy-fastmcp-production.sh "yes env-file" "$@"
if [ "$YES" = 0 ] && ! svc_is_dry_run && [ -t 0 ]; then
  read -r -p "Start the MCP tool servers (project $SVC_COMPOSE_PROJECT, profile $PROFILE)? [y/N] " answer
  [[ "$answer" =~ ^[Yy] ]] || svc_die "not confirmed (use --yes to skip this question)"
fi

svc_log "step 1/4: compose tool"
svc_compose_choose

svc_log "step 2/4: the main deployment's settings ($SVC_ENV_FILE)"
if [ -f "$SVC_ENV_FILE" ]; then
  svc_info "found"
  svc_env_ensure_secret "$SVC_ENV_FILE" SVC_MCP_TOKEN
  # An env file older than the tool servers' own credential gets one (the assistant API is refreshed below).
  svc_env_ensure_secret "$SVC_ENV_FILE" SVC_MCP_ASSISTANT_TOKEN
  svc_env_export "$SVC_ENV_FILE"
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
# Tool servers that are not part of this checkout are left out (with a warning).
present=()
for s in "${TOOL_SERVERS[@]}"; do
  if [ -f "$ROOT/services/$s/bin/svc-$s" ] || [ -f "$ROOT/services/$s/src/main.ts" ]; then present+=("$s"); else svc_warn "$s: not part of this checkout, not started"; fi
done
[ "${#present[@]}" -gt 0 ] || svc_is_dry_run || svc_die "no MCP tool server in this checkout (services/mcp-workflow, services/mcp-assistant)"
[ "${#present[@]}" -gt 0 ] || present=("${TOOL_SERVERS[@]}")
TOOL_SERVERS=("${present[@]}")
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
  svc_deploy_have_image "${SVC_IMAGE:-svc:latest}" || svc_compose --profile "$PROFILE" pull "${TOOL_SERVERS[@]}"
fi
before=$(svc_compose_read --profile "$PROFILE" ps -q "${TOOL_SERVERS[@]}" 2>/dev/null | sort | tr '\n' ' ' || true)
# The assistant API must know the assistant tool server's token: recreated only if its settings changed.
if printf '%s\n' "${TOOL_SERVERS[@]}" | grep -qx mcp-assistant; then svc_compose up -d --no-deps assistant-api; fi
svc_compose --profile "$PROFILE" up -d --no-deps "${TOOL_SERVERS[@]}"

w_port=${SVC_MCP_WORKFLOW_PORT:-8889}
a_port=${SVC_MCP_ASSISTANT_PORT:-8890}
if svc_is_dry_run; then
  svc_info "would wait up to ${TIMEOUT}s for 127.0.0.1:$w_port and 127.0.0.1:$a_port to answer"
  svc_log "dry run complete: nothing was changed. After a deployment:"
else
  for s in "${TOOL_SERVERS[@]}"; do
    if [ "$s" = mcp-workflow ]; then p=$w_port; else p=$a_port; fi
    svc_wait_http "http://127.0.0.1:$p/mcp" "$TIMEOUT" || svc_die "nothing answers on 127.0.0.1:$p; see: $(svc_quote "${SVC_COMPOSE[@]}" -p "$SVC_COMPOSE_PROJECT" logs --tail 50 "$s")"
  done
  after=$(svc_compose_read --profile "$PROFILE" ps -q "${TOOL_SERVERS[@]}" 2>/dev/null | sort | tr '\n' ' ' || true)
  if [ -n "$before" ] && [ "$before" = "$after" ]; then svc_info "redeploy: nothing changed (same containers)"; fi
  svc_log "deployed"
fi
cat <<EOF
    mcp-workflow:   http://127.0.0.1:$w_port/mcp  (MCP over Streamable HTTP)
    mcp-assistant:  http://127.0.0.1:$a_port/mcp
    Authentication: bearer token SVC_MCP_TOKEN from $SVC_ENV_FILE (root only)
EOF
