#!/usr/bin/env bash
# Legacy setup entry point, kept for compatibility: runs scripts/development/deploy-svc.sh.
set -euo pipefail

printf '%s\n' "NOTE: scripts/development/setup.sh is deprecated and will be removed; use" \
  "      scripts/development/deploy-svc.sh (host install) or ./deploy-with-workflows.sh (containers)." >&2
case "${1:-}" in
  -h | --help)
    printf 'Usage: sudo -E scripts/development/setup.sh [deploy-svc.sh options]\n\nRuns deploy-svc.sh with the same options:\n\n'
    ;;
esac
exec "$(dirname "${BASH_SOURCE[0]}")/deploy-svc.sh" "$@"
