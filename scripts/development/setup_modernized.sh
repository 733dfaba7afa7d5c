#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Developer setup of the core, plugin-based: the OS plugin for this host (or the one named)
# drives scripts/development/deploy-svc.sh.
set -euo pipefail

LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")/../lib" && pwd)
# shellcheck source=../lib/common.sh
. "$LIB/common.sh"
# shellcheck source=../lib/os.sh
. "$LIB/os.sh"

usage() {
  cat <<'USAGE'
Usage: sudo -E scripts/development/setup_modernized.sh [--list] [--plugin NAME] [deploy-svc.sh options]

Plugin-based setup of the core (AI assistant, workflow engine, database) on this host. The OS
plugin (rhel9, centos9, centos10, rocky9, debian12) decides the package manager and package set;
by default it is the plugin matching this host. The setup itself is
scripts/development/deploy-svc.sh --plugin NAME, with the other options passed on
(--dry-run, --with-nginx, --stop, --timeout).

Options:
  --list         list the OS plugins (* marks this host's) and exit
  --plugin NAME  use this OS plugin
  -h, --help     show this help
USAGE
}

plugin="" pass=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    --list)
      here=$(svc_os_plugin || true)
      while IFS= read -r p; do
        if [ "$p" = "$here" ]; then printf '* %s\n' "$p"; else printf '  %s\n' "$p"; fi
      done < <(svc_os_plugins)
      exit 0
      ;;
    --plugin) plugin=${2:?--plugin needs a name}; shift ;;
    -h | --help) usage; exit 0 ;;
    *) pass+=("$1") ;;
  esac
  shift
done

if [ -z "$plugin" ]; then
  plugin=$(svc_os_plugin) || svc_die "no OS plugin matches $(svc_os_name); name one with --plugin (see --list)"
fi
svc_os_plugins | grep -qx "$plugin" || svc_die "unknown OS plugin: $plugin (see --list)"
svc_log "OS plugin: $plugin"
exec "$(dirname "${BASH_SOURCE[0]}")/deploy-svc.sh" --plugin "$plugin" ${pass[@]+"${pass[@]}"}
