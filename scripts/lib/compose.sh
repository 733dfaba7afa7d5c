# shellcheck shell=bash
# The compose tool: docker compose (v2), docker-compose, podman compose or podman-compose.
# Needs common.sh and env-file.sh.

SVC_COMPOSE_PROJECT=${SVC_COMPOSE_PROJECT:-svc}
SVC_COMPOSE_FILE=${SVC_COMPOSE_FILE:-$(svc_repo_root)/compose/compose.yaml}
SVC_COMPOSE=()

# Find the compose tool; sets SVC_COMPOSE. Read-only (asks each candidate for its version).
svc_compose_detect() {
  if svc_have docker && timeout 20 docker compose version >/dev/null 2>&1; then
    SVC_COMPOSE=(docker compose)
  elif svc_have docker-compose; then
    SVC_COMPOSE=(docker-compose)
  elif svc_have podman && timeout 20 podman compose version >/dev/null 2>&1; then
    SVC_COMPOSE=(podman compose)
  elif svc_have podman-compose; then
    SVC_COMPOSE=(podman-compose)
  else
    return 1
  fi
}

# The deployment scripts' step "compose tool": the one found, or in a dry run without one the steps
# shown with 'docker compose'; otherwise the deployment stops, saying how to get one.
svc_compose_choose() {
  if svc_compose_detect; then
    svc_info "using: ${SVC_COMPOSE[*]}"
  elif svc_is_dry_run; then
    svc_warn "no compose tool found (the deployment would stop here); showing the steps with 'docker compose'"
    SVC_COMPOSE=(docker compose)
  else
    svc_die "no compose tool: install docker compose or podman compose (scripts/preflight-check.sh --fix)"
  fi
}

# The compose command line for this deployment (project, env file, compose file).
svc_compose_argv() {
  printf '%s\0' "${SVC_COMPOSE[@]}" --project-name "$SVC_COMPOSE_PROJECT" --env-file "$SVC_ENV_FILE" -f "$SVC_COMPOSE_FILE"
}

# Run a compose subcommand (shown; only shown in dry-run mode).
svc_compose() {
  local argv=()
  [ "${#SVC_COMPOSE[@]}" -gt 0 ] || SVC_COMPOSE=(docker compose)
  mapfile -d '' -t argv < <(svc_compose_argv)
  svc_run "${argv[@]}" "$@"
}

# Run a read-only compose subcommand quietly (also in dry-run mode), e.g. ps or config.
svc_compose_read() {
  local argv=()
  [ "${#SVC_COMPOSE[@]}" -gt 0 ] || return 1
  mapfile -d '' -t argv < <(svc_compose_argv)
  "${argv[@]}" "$@"
}

# Services the compose file defines with PROFILE active (or, with PROFILE "--profiles", the
# profile names it defines). A structural check: the required
# variables get placeholder values, so no secret is read (works before the env file exists).
svc_compose_services() {
  local profile=$1 names=() n
  # shellcheck disable=SC2016 # a literal ${ in the pattern
  mapfile -t names < <(grep -o '\${[A-Za-z0-9_]*:?' "$SVC_COMPOSE_FILE" | sed 's/^\${//; s/:?$//' | sort -u)
  local assign=()
  for n in ${names[@]+"${names[@]}"}; do assign+=("$n=/placeholder/$n"); done
  if [ "$profile" = --profiles ]; then
    env ${assign[@]+"${assign[@]}"} "${SVC_COMPOSE[@]}" -f "$SVC_COMPOSE_FILE" config --profiles
  else
    env ${assign[@]+"${assign[@]}"} "${SVC_COMPOSE[@]}" -f "$SVC_COMPOSE_FILE" --profile "$profile" config --services
  fi
}

# Is a container engine answering (docker daemon, or podman which needs none)?
svc_container_engine() {
  if svc_have docker && timeout 20 docker info >/dev/null 2>&1; then echo docker; return 0; fi
  if svc_have podman && timeout 20 podman info >/dev/null 2>&1; then echo podman; return 0; fi
  return 1
}
