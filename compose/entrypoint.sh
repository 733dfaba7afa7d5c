#!/usr/bin/env bash
# Container entry point: start one svc service, named by the first argument or SVC_SERVICE.
set -euo pipefail
# The image keeps the repository in /app; this file is /app/compose/entrypoint.sh.
cd "$(dirname "${BASH_SOURCE[0]}")/.."

usage() {
  cat <<'USAGE'
Usage: entrypoint.sh SERVICE | migrate | svc-engine ARGS... | svc-hosts ARGS... | healthcheck CHECK ARGS...

SERVICE: scheduler, worker, orchestrator, web-ui, assistant-api, mcp-workflow, mcp-assistant
         (or set SVC_SERVICE and pass no argument)
migrate: apply the database migrations and exit
svc-engine: the engine CLI (dags list, dags unpause <dag_id>, dags trigger <dag_id>, ...)
svc-hosts: the hypervisor host inventory (add, list, info, drain, remove; run it in the worker
           container, which has the hosts' keys: docker compose exec worker
           /app/compose/entrypoint.sh svc-hosts add b --ssh USER@ADDR --key /etc/svc/keys/b)
healthcheck: http URL | tcp PORT | heartbeat COMPONENT (see compose/healthcheck.cjs)
USAGE
}

what=${1:-${SVC_SERVICE:-help}}
[ "$#" -gt 0 ] && shift
case "$what" in
  scheduler | worker | orchestrator | web-ui | assistant-api | mcp-workflow | mcp-assistant)
    # A service's own launcher (bin/svc-NAME) when it has one, else its main module.
    bin="services/$what/bin/svc-$what" main="services/$what/src/main.ts"
    printf 'entrypoint: starting %s\n' "$what"
    if [ -f "$bin" ]; then exec node --require tsx/cjs "$bin" "$@"; fi
    if [ ! -f "$main" ]; then
      printf 'entrypoint: %s is not part of this image (%s missing)\n' "$what" "$main" >&2
      exit 1
    fi
    exec node --require tsx/cjs "$main" "$@"
    ;;
  migrate) exec svc-engine db migrate "$@" ;;
  svc-engine) exec svc-engine "$@" ;;
  svc-hosts) exec node packages/hosts/bin/svc-hosts "$@" ;;
  healthcheck) exec node compose/healthcheck.cjs "$@" ;;
  help | -h | --help) usage ;;
  *)
    printf 'entrypoint: unknown service: %s\n\n' "$what" >&2
    usage >&2
    exit 64
    ;;
esac
