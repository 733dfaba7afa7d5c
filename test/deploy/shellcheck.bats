#!/usr/bin/env bats
# Every deployment script is shellcheck-clean, both as the test suite runs it (all files at once,
# from the repository root) and file by file with -x; each entry point runs with set -euo pipefail.

load helpers

scripts() {
  cd "$REPO" || return
  printf '%s\n' ./deploy-with-workflows.sh ./deploy-fastmcp-production.sh ./scripts/preflight-check.sh \
    ./scripts/development/deploy-svc.sh ./scripts/development/setup_modernized.sh ./scripts/development/setup.sh \
    ./compose/entrypoint.sh ./nginx/render-conf.sh ./scripts/lib/*.sh
}

@test "shellcheck passes on every deployment script (as scripts/test.sh runs it)" {
  cd "$REPO"
  mapfile -t files < <(scripts)
  run shellcheck "${files[@]}"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
}

@test "shellcheck -x passes on each script alone" {
  cd "$REPO"
  while IFS= read -r f; do
    run shellcheck -x "$f"
    [ "$status" -eq 0 ] || { echo "$f"; echo "$output"; false; }
  done < <(scripts)
}

@test "entry points use set -euo pipefail and libraries define functions only" {
  cd "$REPO"
  while IFS= read -r f; do
    case "$f" in
      ./scripts/lib/*) head -n 1 "$f" | grep -q '^# shellcheck shell=bash' ;;
      *) grep -qx 'set -euo pipefail' "$f" || { echo "$f lacks set -euo pipefail"; false; } ;;
    esac
  done < <(scripts)
}
