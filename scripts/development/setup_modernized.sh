#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Developer setup of the core, plugin-based: the OS plugin for this host (or the one named)
# prepares the host with svc-plugins, the preflight checks report, then deploy-svc.sh installs
# and starts the core.
set -euo pipefail

LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")/../lib" && pwd)
# shellcheck source=../lib/common.sh
. "$LIB/common.sh"
# shellcheck source=../lib/os.sh
. "$LIB/os.sh"
# shellcheck source=../lib/host-install.sh
. "$LIB/host-install.sh"
REPO=$(svc_repo_root)

usage() {
  cat <<'USAGE'
Usage: sudo -E scripts/development/setup_modernized.sh [--list] [--plugin NAME] [deploy-svc.sh options]

Plugin-based setup of the core (AI assistant, workflow engine, database) on this host:
  1. picks the OS plugin (rhel9, rhel10, centos-stream9, centos-stream10, rocky9, debian12):
     the one matching this host unless --plugin names one
  2. Node.js and pnpm when missing, the node modules, svc-plugins in /usr/local/bin, then
     svc-plugins deploy --plugin NAME --yes: packages, daemons, firewall, SELinux, libvirt pool
     and network (only what differs; with --dry-run the plan is printed)
  3. scripts/preflight-check.sh (report only: failures are shown with their fix hints)
  4. scripts/development/deploy-svc.sh --plugin NAME with the other options
     (--dry-run, --with-nginx, --stop, --timeout)

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
    --dry-run) export SVC_DRY_RUN=1; pass+=("$1") ;;
    -h | --help) usage; exit 0 ;;
    *) pass+=("$1") ;;
  esac
  shift
done

if [ -z "$plugin" ]; then
  plugin=$(svc_os_plugin) || svc_die "no OS plugin matches $(svc_os_name); name one with --plugin (see --list)"
fi
plugin=$(svc_os_plugin_name "$plugin")
svc_os_plugins | grep -qx "$plugin" || svc_die "unknown OS plugin: $plugin (see --list)"
svc_log "OS plugin: $plugin"
svc_is_dry_run || svc_require_root setup_modernized.sh
cd "$REPO"

svc_log "host preparation: svc-plugins deploy --plugin $plugin"
PLUGINS_BIN=$REPO/node_modules/.bin/svc-plugins
if svc_is_dry_run; then
  if [ -x "$PLUGINS_BIN" ] && svc_node_ok; then
    # A dry run of the plugin only reads the host.
    "$PLUGINS_BIN" deploy --plugin "$plugin" --dry-run || svc_die "svc-plugins deploy --plugin $plugin --dry-run failed"
  else
    svc_info "would install Node.js and pnpm when missing, run pnpm install, then $PLUGINS_BIN deploy --plugin $plugin --yes"
  fi
  svc_install_plugins_cli
else
  svc_install_node "$(svc_os_family)"
  svc_install_pnpm
  svc_run pnpm install --frozen-lockfile --reporter=silent
  svc_install_plugins_cli
  "$PLUGINS_BIN" deploy --plugin "$plugin" --yes || svc_die "host preparation failed (the failing step and its output are above)"
fi

svc_log "preflight checks (report only; SSH is set up by deploy-svc.sh, the ports by the services)"
if ! "$REPO/scripts/preflight-check.sh" --skip ssh-localhost,port-assistant,port-web-ui; then
  svc_warn "some preflight checks failed (see the fix hints above); continuing with the setup"
fi

exec "$REPO/scripts/development/deploy-svc.sh" --plugin "$plugin" ${pass[@]+"${pass[@]}"}
