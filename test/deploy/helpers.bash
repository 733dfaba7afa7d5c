# Shared helpers for the deployment tests (bats). Tests only talk to 127.0.0.1.

REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
FIXTURES=$BATS_TEST_DIRNAME/fixtures
export REPO FIXTURES
# `run !` asserts that a command fails.
bats_require_minimum_version 1.5.0
# DNS checks resolve only names from /etc/hosts.
export SVC_PREFLIGHT_DNS_NAMES=localhost

# The compose tool available offline: docker-compose (v1 or v2), else the docker compose plugin.
compose_cmd() {
  if command -v docker-compose >/dev/null 2>&1; then echo docker-compose; else echo "docker compose"; fi
}

# Free TCP ports on 127.0.0.1.
free_ports() { node "$FIXTURES/free-port.cjs" "${1:-1}"; }

# Wait until 127.0.0.1:PORT accepts connections (up to 10 s).
wait_port() {
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "port $1 never opened" >&2
  return 1
}

# A directory of stand-ins for commands that change the system. Each call is logged to
# $1/calls.log; read-only calls (version, config, info, ps, --version) go to the real tool,
# everything else is blocked (exit 97), so a dry run that tried to change something shows up.
make_shims() {
  local dir=$1 cmd real
  mkdir -p "$dir/bin"
  : >"$dir/calls.log"
  for cmd in apt-get dnf yum systemctl ssh-keygen ssh-keyscan ssh groupadd useradd chown chgrp chmod install \
    npm pnpm psql runuser nginx libvirtd virtlogd modprobe setsid nohup curl gpg docker docker-compose podman \
    podman-compose pg_ctlcluster redis-server postgresql-setup; do
    real=$(command -v "$cmd" 2>/dev/null || true)
    cat >"$dir/bin/$cmd" <<SHIM
#!/usr/bin/env bash
case " \$* " in
  *" version "* | *" --version "* | *" config "* | *" info "* | *" ps "*)
    echo "$cmd \$* (read-only)" >>"$dir/calls.log"
    if [ -n "$real" ]; then exec "$real" "\$@"; fi
    exit 127 ;;
esac
echo "BLOCKED $cmd \$*" >>"$dir/calls.log"
exit 97
SHIM
    chmod +x "$dir/bin/$cmd"
  done
}

# A dry run's sandbox for one test: SB, where every path the scripts write to points (it must stay
# empty), and SHIMS, the stand-ins of make_shims; the sandbox's environment is exported.
dry_run_sandbox() {
  SB=$BATS_TEST_TMPDIR/sandbox
  SHIMS=$BATS_TEST_TMPDIR/shims
  mkdir -p "$SB"
  make_shims "$SHIMS"
  while IFS= read -r kv; do export "${kv?}"; done < <(sandbox_env "$SB")
}

# Run a script with the stand-ins first on PATH.
dry() { PATH="$SHIMS/bin:$PATH" run "$@"; }

# The sandbox is still empty and no stand-in was asked to change the system.
sandbox_untouched() {
  [ -z "$(find "$SB" -mindepth 1)" ] || { echo "sandbox changed:"; find "$SB" -mindepth 1; false; }
  if grep -q '^BLOCKED' "$SHIMS/calls.log"; then echo "commands that would change the system:"; cat "$SHIMS/calls.log"; false; fi
}

# Environment for a dry run that points every path the scripts use into $1.
sandbox_env() {
  local t=$1
  echo "SVC_CONFIG_DIR=$t/etc"
  echo "SVC_ENV_FILE=$t/etc/svc.env"
  echo "SVC_SSH_USER=$(id -un)"
  echo "SVC_SSH_KEY_PATH=$t/home/.ssh/id_ed25519"
  echo "SVC_SSH_KNOWN_HOSTS=$t/etc/ssh/known_hosts"
  echo "SVC_SSH_AUTHORIZED_KEYS=$t/home/.ssh/authorized_keys"
  echo "SVC_INVENTORY_DIR=$t/inventory"
  echo "SVC_VAULT_PASSWORD_FILE=$t/etc/vault-password"
  echo "SVC_RUN_DIR=$t/run"
  echo "SVC_LOG_DIR=$t/log"
  echo "SVC_UNIT_DIR=$t/units"
  echo "SVC_BIN_DIR=$t/bin"
}
