#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# One-step deployment on the host, without containers: the AI assistant, the workflow engine and
# their database. Run with sudo -E (the environment is kept).
set -euo pipefail

LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")/../lib" && pwd)
# shellcheck source=../lib/common.sh
. "$LIB/common.sh"
# shellcheck source=../lib/os.sh
. "$LIB/os.sh"
# shellcheck source=../lib/env-file.sh
. "$LIB/env-file.sh"
# shellcheck source=../lib/ssh.sh
. "$LIB/ssh.sh"
# shellcheck source=../lib/deploy-steps.sh
. "$LIB/deploy-steps.sh"
# shellcheck source=../lib/deploy-options.sh
. "$LIB/deploy-options.sh"
# shellcheck source=../lib/host-install.sh
. "$LIB/host-install.sh"
# shellcheck source=../lib/supervisor.sh
. "$LIB/supervisor.sh"
REPO=$(svc_repo_root)

usage() {
  cat <<'USAGE'
Usage: sudo -E scripts/development/deploy-svc.sh [--dry-run] [--plugin NAME] [--with-nginx] [--stop]

Installs and starts the AI assistant (8080), the workflow engine with its UI and REST API (8888),
PostgreSQL and Redis on this host, without containers:
  1. distribution packages that are missing (dnf or apt-get), Node.js >= 20.19, pnpm
  2. PostgreSQL and Redis started on 127.0.0.1; a database role `svc` with a generated password
  3. the env file (default /etc/svc/svc.env, mode 600) with generated credentials
  4. SSH for the workflow engine: key, authorized_keys entry, pinned host key, check
  5. pnpm install, svc-engine db migrate, the VM CLI (svc-vm in /usr/local/bin)
  6. a process supervisor: one systemd unit per service when systemd runs the host, otherwise
     `pnpm start` under nohup (pid file /run/svc/svc.pid, log /var/log/svc/svc.log)
  7. waits until the services answer and prints the URLs
Secrets are never printed: the script says where they are.

Options:
  --dry-run        print the steps without changing anything
  --plugin NAME    OS plugin (rhel9, rhel10, centos-stream9, centos-stream10, rocky9, debian12;
                   default: this host's; centos9 and centos10 still name the CentOS Stream ones)
  --with-nginx     put the host nginx in front (nginx/nginx-host.conf): services on 127.0.0.1
                   ports 18080/18888, nginx on 8080/8888
  --stop           stop the services started by an earlier run, and exit
  --timeout SECONDS  how long to wait for the services (default 300)
  -h, --help       show this help
USAGE
}

PLUGIN="" WITH_NGINX=0 STOP=0 TIMEOUT=300
svc_deploy_option() {
  case "$1" in
    --plugin) PLUGIN=${2:?--plugin needs a name}; SVC_OPTION_WORDS=2 ;;
    --with-nginx) WITH_NGINX=1 ;;
    --stop) STOP=1 ;;
    *) return 1 ;;
  esac
}
svc_deploy_options deploy-svc.sh "" "$@"

if [ "$STOP" = 1 ]; then
  svc_log "stopping the svc services"
  svc_supervisor_stop
  exit 0
fi

detected=$(svc_os_plugin || true)
PLUGIN=$(svc_os_plugin_name "${PLUGIN:-$detected}")
svc_os_plugins | grep -qx "$PLUGIN" || svc_die "unknown or unsupported OS plugin '${PLUGIN}' (known: $(svc_os_plugins | tr '\n' ' '))"
FAMILY=$(svc_os_family)
case "$PLUGIN" in debian*) want=debian ;; *) want=rhel ;; esac
[ "$FAMILY" = "$want" ] || svc_die "plugin $PLUGIN does not match this host ($(svc_os_name))"
svc_log "OS plugin: $PLUGIN ($(svc_os_name))"

cd "$REPO"
svc_log "step 1/7: packages"
mapfile -t missing < <(svc_host_packages "$FAMILY")
if [ "${#missing[@]}" -gt 0 ]; then
  # shellcheck disable=SC2046 # entries may name several packages
  svc_pkg_install $(printf '%s ' "${missing[@]}")
else
  svc_info "all present"
fi
svc_install_node "$FAMILY"
svc_install_pnpm

svc_log "step 2/7: PostgreSQL and Redis"
svc_start_databases "$FAMILY"

svc_log "step 3/7: settings and credentials in $SVC_ENV_FILE"
svc_env_ensure_file "$SVC_ENV_FILE"
svc_setup_database_role "$SVC_ENV_FILE" "$FAMILY"
svc_deploy_credentials "$SVC_ENV_FILE"
svc_env_ensure_value "$SVC_ENV_FILE" SVC_SSH_HOST 127.0.0.1
# Commands run on the host over SSH, from the SSH user's home: absolute paths.
svc_env_ensure_value "$SVC_ENV_FILE" SVC_PLAYBOOKS_DIR "$REPO/playbooks"
svc_env_ensure_value "$SVC_ENV_FILE" SVC_DAGS_DIR "$REPO/dags"
if [ "$WITH_NGINX" = 1 ]; then
  svc_env_ensure_value "$SVC_ENV_FILE" SVC_BIND_HOST 127.0.0.1
  svc_env_ensure_value "$SVC_ENV_FILE" SVC_ASSISTANT_PORT 18080
  svc_env_ensure_value "$SVC_ENV_FILE" SVC_WEB_UI_PORT 18888
fi
svc_env_ensure_value "$SVC_ENV_FILE" SVC_WORKFLOW_UI_URL "http://$(svc_public_host):8888"
svc_deploy_ssh_settings "$SVC_ENV_FILE"
svc_deploy_host_files "$SVC_ENV_FILE"
svc_env_export "$SVC_ENV_FILE"

svc_log "step 4/7: SSH from the workflow engine to this host"
svc_deploy_ssh_connection

svc_log "step 5/7: node modules, database migrations, the VM CLI"
svc_run pnpm install --frozen-lockfile
svc_run pnpm exec svc-engine db migrate
svc_install_vm_cli

svc_log "step 6/7: start the services"
svc_supervise "${SVC_RUN_USER:-$SSH_USER}" "$REPO" "$SVC_ENV_FILE"
[ "$WITH_NGINX" = 1 ] && svc_host_nginx "$REPO"

svc_log "step 7/7: wait for the services"
if svc_is_dry_run; then
  svc_info "would wait up to ${TIMEOUT}s for http://127.0.0.1:8080/health and http://127.0.0.1:8888/api/v1/health"
else
  svc_wait_http "http://127.0.0.1:8888/api/v1/health" "$TIMEOUT" || svc_die "the workflow UI did not answer (logs: $SVC_LOG_DIR/svc.log or journalctl -u 'svc-*')"
  svc_wait_http "http://127.0.0.1:8080/health" "$TIMEOUT" || svc_die "the AI assistant did not answer (logs: $SVC_LOG_DIR/svc.log or journalctl -u 'svc-*')"
fi

host=$(svc_public_host)
if svc_is_dry_run; then svc_log "dry run complete: nothing was changed. After a deployment:"; else svc_log "deployed"; fi
cat <<EOF
    AI assistant:   http://$host:8080  (health: /health)
    Workflow UI:    http://$host:8888  (REST API: /api/v1)
    Credentials:    user ${SVC_ADMIN_USER:-admin}; the password and the API token are in $SVC_ENV_FILE (root only)
    Engine CLI:     cd $REPO && set -a && . $SVC_ENV_FILE && set +a && pnpm exec svc-engine dags list
    Stop:           sudo scripts/development/deploy-svc.sh --stop
EOF
