#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Production deployment: the AI assistant, the workflow engine, Postgres, Redis and the nginx
# reverse proxy, with the compose tool (compose/compose.yaml, default profile).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib/common.sh
. "$ROOT/scripts/lib/common.sh"
# shellcheck source=scripts/lib/env-file.sh
. "$ROOT/scripts/lib/env-file.sh"
# shellcheck source=scripts/lib/ssh.sh
. "$ROOT/scripts/lib/ssh.sh"
# shellcheck source=scripts/lib/compose.sh
. "$ROOT/scripts/lib/compose.sh"
# shellcheck source=scripts/lib/deploy-steps.sh
. "$ROOT/scripts/lib/deploy-steps.sh"
# shellcheck source=scripts/lib/deploy-options.sh
. "$ROOT/scripts/lib/deploy-options.sh"
# shellcheck source=scripts/lib/offline-images.sh
. "$ROOT/scripts/lib/offline-images.sh"

usage() {
  cat <<'USAGE'
Usage: sudo -E ./deploy-with-workflows.sh [--yes] [--dry-run] [--skip-preflight] [--env-file PATH] [--timeout SECONDS]

Deploys the AI assistant (8080), the workflow engine with its UI and REST API (8888), Postgres,
Redis and nginx with the compose tool (docker compose, docker-compose or podman compose):
  1. runs scripts/preflight-check.sh (stops on failures)
  2. creates the env file (default /etc/svc/svc.env, mode 600) with generated credentials
     (admin password, API token, database and Redis passwords) when they are missing
  3. sets up SSH for the workflow engine: an ed25519 key for the SSH user (generated when
     missing), its authorized_keys entry, this host's SSH key pinned in the known_hosts file the
     containers mount (trust on first use; the fingerprints are printed), then checks
     `ssh user@127.0.0.1 true`
  4. picks the base images: the official ones when they can be pulled, else offline ones built
     from this machine's Debian mirror (scripts/build-offline-images.sh)
  5. builds the image (or pulls SVC_IMAGE when BUILD_AI_ASSISTANT_FROM_SOURCE=false) and starts
     the default profile, waits until the services answer, prints the URLs
A second run keeps the credentials and the data and says whether any container changed.
Secrets are never printed: the script says where they are.

Options:
  -y, --yes          do not ask before deploying (also when CI is set)
  --dry-run          print the steps without changing anything
  --skip-preflight   do not run the preflight checks
  --env-file PATH    env file to use or create (default /etc/svc/svc.env; or SVC_ENV_FILE)
  --timeout SECONDS  how long to wait for the services to answer (default 900)
  -h, --help         show this help

Environment: SVC_SSH_USER (default: $USER), SVC_SSH_KEY_PATH, SVC_SSH_KNOWN_HOSTS
(default /etc/svc/ssh/known_hosts), SVC_SSH_PORT (22), MODEL_PROVIDER_API_KEY and the SVC_*
settings listed in docs/deployment.md (the environment wins over the env file).
USAGE
}

SKIP_PREFLIGHT=0 TIMEOUT=900 YES=0
svc_deploy_option() {
  case "$1" in
    --skip-preflight) SKIP_PREFLIGHT=1 ;;
    *) return 1 ;;
  esac
}
svc_deploy_options deploy-with-workflows.sh "yes env-file" "$@"
if [ "$YES" = 0 ] && ! svc_is_dry_run && [ -t 0 ]; then
  read -r -p "Deploy svc with the compose tool on this host (project $SVC_COMPOSE_PROJECT)? [y/N] " answer
  [[ "$answer" =~ ^[Yy] ]] || svc_die "not confirmed (use --yes to skip this question)"
fi

svc_log "step 1/6: preflight checks"
if [ "$SKIP_PREFLIGHT" = 1 ]; then
  svc_info "skipped (--skip-preflight)"
elif svc_is_dry_run; then
  svc_info "would run: $ROOT/scripts/preflight-check.sh --skip ssh-localhost (SSH is set up in step 4)"
else
  # SSH to this host is set up and checked in step 4. A running deployment holds 8080/8888
  # itself: a redeploy does not need them free.
  skip=ssh-localhost
  if [ -f "$SVC_ENV_FILE" ] && svc_compose_detect && [ -n "$(svc_compose_read ps -q nginx 2>/dev/null || true)" ]; then
    skip+=",port-assistant,port-web-ui"
  fi
  "$ROOT/scripts/preflight-check.sh" --skip "$skip" ||
    svc_die "preflight checks failed: repair with scripts/preflight-check.sh --fix, or rerun with --skip-preflight if you accept the failures"
fi

svc_log "step 2/6: compose tool"
svc_compose_choose

svc_log "step 3/6: settings and credentials in $SVC_ENV_FILE"
svc_env_ensure_file "$SVC_ENV_FILE"
svc_deploy_credentials "$SVC_ENV_FILE"
svc_env_ensure_secret "$SVC_ENV_FILE" SVC_POSTGRES_PASSWORD
svc_env_ensure_secret "$SVC_ENV_FILE" SVC_REDIS_PASSWORD
svc_env_ensure_value "$SVC_ENV_FILE" SVC_WORKFLOW_UI_URL "http://$(svc_public_host):${SVC_WEB_UI_PUBLISHED_PORT:-8888}"
svc_deploy_ssh_settings "$SVC_ENV_FILE"
svc_deploy_host_files "$SVC_ENV_FILE"
svc_env_export "$SVC_ENV_FILE"

svc_log "step 4/6: SSH from the workflow engine to this host, and the VM CLI it runs"
svc_deploy_ssh_connection
svc_install_vm_cli

svc_log "step 5/6: base images"
svc_deploy_base_images "$SVC_ENV_FILE"

svc_log "step 6/6: containers (project $SVC_COMPOSE_PROJECT, $SVC_COMPOSE_FILE)"
before=$(svc_deploy_container_ids)
from_source=${BUILD_AI_ASSISTANT_FROM_SOURCE:-$(svc_env_get "$SVC_ENV_FILE" BUILD_AI_ASSISTANT_FROM_SOURCE)}
# Every application service runs the same image: building it for one builds it for all.
if [ "${from_source:-true}" = true ]; then
  svc_compose build scheduler
  # The image a rebuild replaced is left untagged: remove it (only this product's images).
  svc_is_dry_run || docker image prune -f --filter label=org.opencontainers.image.title=svc >/dev/null 2>&1 || true
else
  # A prebuilt SVC_IMAGE: used when present (docker load on an air-gapped host), else pulled.
  svc_deploy_have_image "${SVC_IMAGE:-svc:latest}" || svc_compose pull scheduler
fi
# Scaled services keep their number of containers (docker-compose up -d --scale worker=3 earlier).
scale=()
for s in worker orchestrator; do
  n=$(svc_compose_read ps -q "$s" 2>/dev/null | grep -c . || true)
  if [ "${n:-0}" -gt 1 ]; then scale+=(--scale "$s=$n"); fi
done
svc_compose up -d ${scale[@]+"${scale[@]}"}
a_port=${SVC_ASSISTANT_PUBLISHED_PORT:-8080}
w_port=${SVC_WEB_UI_PUBLISHED_PORT:-8888}
if svc_is_dry_run; then
  svc_info "would wait up to ${TIMEOUT}s for http://127.0.0.1:$a_port/health and http://127.0.0.1:$w_port/api/v1/health (a healthy scheduler)"
else
  svc_info "waiting up to ${TIMEOUT}s for the services to answer"
  svc_wait_http "http://127.0.0.1:$w_port/api/v1/health" "$TIMEOUT" || svc_die "the workflow UI did not answer; see: $(svc_quote "${SVC_COMPOSE[@]}" -p "$SVC_COMPOSE_PROJECT" logs --tail 50 web-ui)"
  svc_wait_http "http://127.0.0.1:$a_port/health" "$TIMEOUT" || svc_die "the AI assistant did not answer; see: $(svc_quote "${SVC_COMPOSE[@]}" -p "$SVC_COMPOSE_PROJECT" logs --tail 50 assistant-api)"
  # Deployed means runs can be scheduled, not only that the HTTP services answer: the scheduler
  # beats, and its first pass over the DAG folder has filled the catalogue.
  svc_wait_http_body "http://127.0.0.1:$w_port/api/v1/health" '"scheduler":\{"status":"healthy"' "$TIMEOUT" || svc_die "the scheduler did not report healthy; see: $(svc_quote "${SVC_COMPOSE[@]}" -p "$SVC_COMPOSE_PROJECT" logs --tail 50 scheduler)"
  api_token=$(svc_env_get "$SVC_ENV_FILE" SVC_API_TOKEN)
  if [ -n "$api_token" ]; then
    svc_wait_http_body "http://127.0.0.1:$w_port/api/v1/dags?limit=1" '"total_entries":[1-9]' "$TIMEOUT" "$api_token" || svc_die "the scheduler has not loaded the DAG catalogue; see: $(svc_quote "${SVC_COMPOSE[@]}" -p "$SVC_COMPOSE_PROJECT" logs --tail 50 scheduler)"
  fi
  # Recreated containers may have new addresses: nginx resolves its upstreams when it (re)loads.
  svc_compose exec -T nginx nginx -s reload || svc_warn "could not reload nginx"
  health=$(curl -s --max-time 5 "http://127.0.0.1:$a_port/health" | grep -o '"status":"[a-z]*"' | head -n 1 || true)
  svc_info "assistant health: ${health:-unknown}"
fi

if ! svc_is_dry_run; then
  after=$(svc_deploy_container_ids)
  if [ -n "$before" ] && [ "$before" = "$after" ]; then
    svc_info "redeploy: nothing changed (same containers; credentials and data kept)"
  elif [ -n "$before" ]; then
    svc_info "redeploy: changed containers were recreated; credentials and data (volume postgres-data) kept"
  fi
fi
host=$(svc_public_host)
admin_user=${SVC_ADMIN_USER:-$(svc_env_get "$SVC_ENV_FILE" SVC_ADMIN_USER)}
if svc_is_dry_run; then svc_log "dry run complete: nothing was changed. After a deployment:"; else svc_log "deployed"; fi
cat <<EOF
    AI assistant:   http://$host:$a_port  (health: /health, API: /orchestrator/...)
    Workflow UI:    http://$host:$w_port  (REST API: http://$host:$w_port/api/v1)
    Credentials:    user ${admin_user:-admin}; the password and the API token are in $SVC_ENV_FILE (root only)
    Status:         $(svc_quote "${SVC_COMPOSE[@]}" -p "$SVC_COMPOSE_PROJECT" --env-file "$SVC_ENV_FILE" -f "$SVC_COMPOSE_FILE" ps)
    Engine CLI:     $(svc_quote "${SVC_COMPOSE[@]}" -p "$SVC_COMPOSE_PROJECT" --env-file "$SVC_ENV_FILE" -f "$SVC_COMPOSE_FILE" exec scheduler svc-engine dags list)
EOF
