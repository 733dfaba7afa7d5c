# shellcheck shell=bash
# Steps shared by the deployment scripts: credentials in the env file, the SSH user's settings,
# the SSH connection to this host (spec 5.3), the vault password file and the inventory directory.
# Needs common.sh, env-file.sh, ssh.sh.

# Generated credentials (one scheme for the whole product: HTTP basic admin user or bearer token).
svc_deploy_credentials() {
  local file=$1
  svc_env_ensure_value "$file" SVC_ADMIN_USER admin
  svc_env_ensure_secret "$file" SVC_ADMIN_PASSWORD
  svc_env_ensure_secret "$file" SVC_API_TOKEN
  # The assistant tool server's own token: the assistant API accepts it with SVC_MCP_ASSISTANT_ROLE (default user).
  svc_env_ensure_secret "$file" SVC_MCP_ASSISTANT_TOKEN
  svc_env_ensure_value "$file" SVC_DEPLOYMENT_MODE production
  # Optional settings given in the environment are kept for the next runs.
  local k
  for k in SVC_DOMAIN SVC_CLUSTER_NAME SVC_ENABLE_AI_ASSISTANT SVC_ENABLE_WORKFLOWS USE_LOCAL_MODEL \
    SVC_LOCAL_MODEL_URL SVC_MODEL_NAME SVC_MODEL_BASE_URL BUILD_AI_ASSISTANT_FROM_SOURCE SVC_LOG_LEVEL \
    SVC_BIND_ADDRESS SVC_ASSISTANT_PUBLISHED_PORT SVC_WEB_UI_PUBLISHED_PORT SVC_MCP_BIND_ADDRESS \
    SVC_MCP_WORKFLOW_PORT SVC_MCP_ASSISTANT_PORT SVC_IMAGE SVC_NPM_REGISTRY SVC_DAGS_HOST_DIR \
    SVC_WORKER_CONCURRENCY SVC_MCP_WORKFLOW_ROLE SVC_MCP_ASSISTANT_ROLE SVC_COMPOSE_NETWORK SVC_ALLOWED_HOSTS; do
    if [ -n "${!k:-}" ]; then svc_env_ensure_value "$file" "$k" "${!k}"; fi
  done
  if [ -n "${MODEL_PROVIDER_API_KEY:-}" ]; then svc_env_ensure_secret "$file" MODEL_PROVIDER_API_KEY; fi
}

# Work out the SSH user, key, known_hosts and port, and record them in the env file.
# Sets SSH_USER SSH_KEY SSH_KNOWN_HOSTS SSH_PORT for the caller.
svc_deploy_ssh_settings() {
  local file=$1
  SSH_USER=$(svc_ssh_user)
  id "$SSH_USER" >/dev/null 2>&1 || svc_die "SSH user $SSH_USER does not exist (set SVC_SSH_USER; see docs/deployment.md, non-root mode)"
  SSH_KEY=$(svc_ssh_key_path "$SSH_USER")
  SSH_KNOWN_HOSTS=$(svc_ssh_known_hosts)
  SSH_PORT=$(svc_ssh_port)
  svc_log "SSH settings: user $SSH_USER, key $SSH_KEY, known_hosts $SSH_KNOWN_HOSTS, port $SSH_PORT"
  svc_env_ensure_value "$file" SVC_SSH_USER "$SSH_USER"
  svc_env_ensure_value "$file" SVC_SSH_UID "$(id -u "$SSH_USER")"
  svc_env_ensure_value "$file" SVC_SSH_GID "$(id -g "$SSH_USER")"
  svc_env_ensure_value "$file" SVC_SSH_KEY_PATH "$SSH_KEY"
  svc_env_ensure_value "$file" SVC_SSH_KNOWN_HOSTS "$SSH_KNOWN_HOSTS"
  svc_env_ensure_value "$file" SVC_SSH_PORT "$SSH_PORT"
}

# Key, authorized_keys entry, pinned host key, then the check of spec 5.3.
svc_deploy_ssh_connection() {
  svc_log "setting up SSH from the workflow engine to $SSH_USER@this host"
  svc_ssh_ensure_key "$SSH_USER" "$SSH_KEY"
  svc_ssh_authorize "$SSH_USER" "$SSH_KEY" || svc_die "could not add the key to $SSH_USER's authorized_keys"
  svc_ssh_pin_host_key "$SSH_KNOWN_HOSTS" "$SSH_PORT" || svc_die "could not pin this host's SSH key"
  svc_log "checking SSH: ssh $SSH_USER@127.0.0.1 -p $SSH_PORT true (strict host key checking)"
  if svc_is_dry_run; then
    svc_info "would run: $(svc_quote ssh -i "$SSH_KEY" -p "$SSH_PORT" -o BatchMode=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile="$SSH_KNOWN_HOSTS" "$SSH_USER@127.0.0.1" true)"
    return 0
  fi
  svc_ssh_check "$SSH_USER" "$SSH_KEY" "$SSH_KNOWN_HOSTS" "$SSH_PORT" ||
    svc_die "SSH to $SSH_USER@127.0.0.1:$SSH_PORT failed: is sshd running, does it allow key logins for $SSH_USER (PermitRootLogin for root)? See docs/deployment.md, troubleshooting"
  svc_info "SSH works"
}

# Playbooks path, inventory directory and vault password file (the last two owned by the SSH user:
# the workers run as that uid, and ansible-playbook on the host as that user).
svc_deploy_host_files() {
  local file=$1 inv vault group keys
  group=$(id -gn "$SSH_USER")
  inv=${SVC_INVENTORY_DIR:-$(svc_env_get "$file" SVC_INVENTORY_DIR)}
  inv=${inv:-/var/lib/svc/inventory}
  vault=${SVC_VAULT_PASSWORD_FILE:-$(svc_env_get "$file" SVC_VAULT_PASSWORD_FILE)}
  vault=${vault:-$SVC_CONFIG_DIR/vault-password}
  # ansible-playbook runs on the host: the playbooks' absolute host path.
  svc_env_ensure_value "$file" SVC_PLAYBOOKS_HOST_DIR "$(svc_repo_root)/playbooks"
  svc_env_ensure_value "$file" SVC_INVENTORY_DIR "$inv"
  svc_env_ensure_value "$file" SVC_VAULT_PASSWORD_FILE "$vault"
  [ -d "$inv" ] || svc_run install -d -m 750 -o "$SSH_USER" -g "$group" "$inv"
  # Keys of further hypervisor hosts (docs/host-layer.md): read by the workers, as the SSH user.
  keys=${SVC_HOSTS_KEYS_DIR:-$(svc_env_get "$file" SVC_HOSTS_KEYS_DIR)}
  keys=${keys:-/etc/svc/keys}
  svc_env_ensure_value "$file" SVC_HOSTS_KEYS_DIR "$keys"
  [ -d "$keys" ] || svc_run install -d -m 700 -o "$SSH_USER" -g "$group" "$keys"
  if [ -f "$vault" ]; then
    svc_info "vault password file: $vault (exists)"
  elif svc_is_dry_run; then
    svc_info "would generate the vault password file $vault (mode 600, owner $SSH_USER)"
  else
    install -d -m 755 "$(dirname "$vault")"
    (umask 077 && svc_gen_secret >"$vault")
    chown "$SSH_USER:$group" "$vault"
    svc_info "vault password file: generated $vault (mode 600, owner $SSH_USER)"
  fi
}

# The VM CLI the workflow engine runs on this host over SSH (`svc-vm`, the default SVC_VM_CLI):
# a wrapper in SVC_BIN_DIR (default /usr/local/bin, on the PATH of SSH sessions) that runs this
# checkout's packages/vm/bin/svc-vm. Skipped when svc-vm or kcli is already installed or
# SVC_VM_CLI is set; needs Node.js and the checkout's node modules (pnpm install).
svc_install_vm_cli() {
  local repo bin=${SVC_BIN_DIR:-/usr/local/bin} target
  repo=$(svc_repo_root)
  target=$repo/packages/vm/bin/svc-vm
  if [ -n "${SVC_VM_CLI:-}" ]; then svc_info "VM CLI: SVC_VM_CLI is set"; return 0; fi
  if [ -f "$bin/svc-vm" ] && ! grep -q 'Installed by the svc deployment scripts' "$bin/svc-vm"; then
    svc_info "VM CLI: $bin/svc-vm (installed separately, kept)"
    return 0
  fi
  if svc_have kcli && ! svc_have svc-vm; then svc_info "VM CLI: kcli"; return 0; fi
  case "$target" in *"'"*) svc_warn "the checkout path contains a quote: install svc-vm by hand"; return 0 ;; esac
  if svc_is_dry_run; then
    svc_info "would write $bin/svc-vm (runs $target)"
    return 0
  fi
  if ! svc_have node || [ ! -d "$repo/packages/vm/node_modules" ]; then
    svc_warn "VM CLI: no Node.js or node modules in $repo, so svc-vm is not installed; VM tasks will fail until it is (see docs/deployment.md)"
    return 0
  fi
  install -d -m 755 "$bin"
  printf '#!/bin/sh
# Installed by the svc deployment scripts: the VM CLI of the checkout in %s.
exec '"'"'%s'"'"' "$@"
' "$repo" "$target" >"$bin/svc-vm"
  chmod 755 "$bin/svc-vm"
  svc_info "VM CLI: wrote $bin/svc-vm (runs $target)"
}

# Where to reach the UIs from other machines.
svc_public_host() { hostname -f 2>/dev/null || hostname; }

# Base images: the official ones (SVC_NODE_IMAGE, SVC_POSTGRES_IMAGE, SVC_REDIS_IMAGE,
# SVC_NGINX_IMAGE, defaults in compose/compose.yaml) when present or pullable, else the offline
# ones built from this machine's Debian mirror. The choice is kept in the env file.
svc_deploy_base_images() {
  local file=$1 k ref missing=() line
  local -A official=([SVC_NODE_IMAGE]=node:20-bookworm-slim [SVC_POSTGRES_IMAGE]=postgres:16-bookworm
    [SVC_REDIS_IMAGE]=redis:7-bookworm [SVC_NGINX_IMAGE]=nginx:1.27-alpine)
  for k in SVC_NODE_IMAGE SVC_POSTGRES_IMAGE SVC_REDIS_IMAGE SVC_NGINX_IMAGE; do
    ref=${!k:-$(svc_env_get "$file" "$k")}
    [ -n "$ref" ] || ref=${official[$k]}
    if [[ "$ref" == "$SVC_OFFLINE_PREFIX/"* ]]; then missing+=("$k"); continue; fi
    if svc_is_dry_run; then svc_info "would use $ref (pulled when missing)"; continue; fi
    # After one failed pull the others are not tried (no registry: each would only wait).
    if [ "${#missing[@]}" -gt 0 ] && ! docker image inspect "$ref" >/dev/null 2>&1; then missing+=("$k"); continue; fi
    docker image inspect "$ref" >/dev/null 2>&1 || timeout 90 docker pull -q "$ref" >/dev/null 2>&1 || missing+=("$k")
  done
  [ "${#missing[@]}" -gt 0 ] || { svc_info "base images: official"; return 0; }
  if svc_is_dry_run; then svc_info "would build the offline base images (scripts/build-offline-images.sh)"; return 0; fi
  if [ "${#missing[@]}" -eq 4 ] && [[ "$(svc_env_get "$file" SVC_NODE_IMAGE)" == "$SVC_OFFLINE_PREFIX/"* ]]; then
    svc_info "base images: offline, as chosen before (kept in $file; rebuilt only when their recipe changed)"
  else
    svc_info "official base images cannot be pulled: using offline images built from this machine's Debian mirror (scripts/build-offline-images.sh)"
  fi
  "$(svc_repo_root)/scripts/build-offline-images.sh" >"$SVC_OFFLINE_CACHE.log" 2>&1 ||
    svc_die "building the offline images failed; see $SVC_OFFLINE_CACHE.log"
  while IFS= read -r line; do
    k=${line%%=*}
    [ "$(svc_env_get "$file" "$k")" = "${line#*=}" ] || svc_env_set "$file" "$k" "${line#*=}"
    export "$k=${line#*=}"
  done < <(svc_offline_env)
}

# Container IDs of the deployment (sorted), to tell whether a redeploy changed anything.
svc_deploy_container_ids() { { svc_compose_read ps -q 2>/dev/null || true; } | sort | tr '\n' ' '; }

# Is IMAGE present in the local engine (so it need not be pulled)? Never in dry-run mode.
svc_deploy_have_image() {
  if svc_is_dry_run; then return 1; fi
  if docker image inspect "$1" >/dev/null 2>&1; then svc_info "image $1: present"; return 0; fi
  return 1
}
