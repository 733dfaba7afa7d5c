#!/usr/bin/env bats
# The SSH setup the deploy scripts do (spec 5.3), against a real sshd started for this file on a
# spare 127.0.0.1 port: key generation, authorized_keys, the host key pinned (never ignored) and
# the check with a trivial command.

load helpers

setup_file() {
  S=$(mktemp -d /tmp/svc-deploy-sshd.XXXXXX)
  export S
  ssh-keygen -q -t ed25519 -N '' -f "$S/host_ed25519"
  SSHD_PORT=$(free_ports 1)
  export SSHD_PORT
  cat >"$S/sshd_config" <<CONF
Port $SSHD_PORT
ListenAddress 127.0.0.1
HostKey $S/host_ed25519
PidFile $S/sshd.pid
AuthorizedKeysFile $S/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
LogLevel ERROR
CONF
  [ -d /run/sshd ] || install -d -m 755 /run/sshd
  # In the foreground (-D) as a child of the test run; stopped in teardown_file.
  /usr/sbin/sshd -D -e -f "$S/sshd_config" >"$S/sshd.log" 2>&1 3>&- &
  echo $! >"$S/sshd.child"
  wait_port "$SSHD_PORT"
}

teardown_file() {
  if [ -f "$S/sshd.child" ]; then kill "$(cat "$S/sshd.child")" 2>/dev/null || true; fi
  rm -rf "$S"
}

setup() {
  W=$BATS_TEST_TMPDIR/w
  mkdir -p "$W"
  SVC_SSH_USER=$(id -un)
  export SVC_SSH_USER SVC_SSH_PORT=$SSHD_PORT SVC_SSH_KEY_PATH=$W/ssh/id_ed25519 \
    SVC_SSH_KNOWN_HOSTS=$W/etc/ssh/known_hosts SVC_SSH_AUTHORIZED_KEYS=$S/authorized_keys SVC_CONFIG_DIR=$W/etc \
    SVC_ENV_FILE=$W/etc/svc.env
  rm -f "$S/authorized_keys"
}

# The deploy scripts' SSH steps (scripts/lib/deploy-steps.sh), in a fresh shell.
ssh_steps() {
  bash -c 'set -euo pipefail
    for f in common env-file ssh deploy-steps; do . "$1/scripts/lib/$f.sh"; done
    svc_env_ensure_file "$SVC_ENV_FILE"
    svc_deploy_ssh_settings "$SVC_ENV_FILE"
    svc_deploy_ssh_connection' _ "$REPO"
}

@test "a fresh setup generates the key, authorizes it, pins the host key and checks the connection" {
  run ssh_steps
  [ "$status" -eq 0 ]
  [ -f "$W/ssh/id_ed25519" ] && [ "$(stat -c %a "$W/ssh/id_ed25519")" = 600 ]
  grep -qF "$(awk '{print $2}' "$W/ssh/id_ed25519.pub")" "$S/authorized_keys"
  [ "$(stat -c %a "$S/authorized_keys")" = 600 ]
  # The fingerprint printed is the sshd's real host key.
  fp=$(ssh-keygen -lf "$S/host_ed25519.pub" | awk '{print $2}')
  [[ "$output" == *"trust on first use"*"$fp"* ]]
  [[ "$output" == *"SSH works"* ]]
  # Pinned under the names the host and the containers use.
  for name in 127.0.0.1 localhost host.docker.internal host.containers.internal; do
    ssh-keygen -F "[$name]:$SSHD_PORT" -f "$W/etc/ssh/known_hosts" | grep -qF "$(awk '{print $2}' "$S/host_ed25519.pub")"
  done
  # The settings the containers need are in the env file (mode 600).
  [ "$(stat -c %a "$SVC_ENV_FILE")" = 600 ]
  grep -qx "SVC_SSH_KNOWN_HOSTS=$W/etc/ssh/known_hosts" "$SVC_ENV_FILE"
  grep -qx "SVC_SSH_UID=$(id -u)" "$SVC_ENV_FILE"
}

@test "a second run changes nothing: one authorized_keys line, the same known_hosts" {
  run ssh_steps
  [ "$status" -eq 0 ]
  kh=$(cat "$W/etc/ssh/known_hosts")
  run ssh_steps
  [ "$status" -eq 0 ]
  [[ "$output" == *"already has the key"* ]]
  [[ "$output" == *"already pinned"* ]]
  [ "$(wc -l <"$S/authorized_keys")" -eq 1 ]
  [ "$(cat "$W/etc/ssh/known_hosts")" = "$kh" ]
}

@test "an existing RSA key is used as it is (non-root mode keys)" {
  mkdir -p "$W/ssh"
  ssh-keygen -q -t rsa -b 3072 -N '' -f "$W/ssh/id_rsa"
  export SVC_SSH_KEY_PATH=$W/ssh/id_rsa
  run ssh_steps
  [ "$status" -eq 0 ]
  [ ! -f "$W/ssh/id_ed25519" ]
  grep -q '^ssh-rsa ' "$S/authorized_keys"
}

@test "a changed host key is refused, not overwritten" {
  mkdir -p "$W/etc/ssh"
  ssh-keygen -q -t ed25519 -N '' -f "$W/other"
  printf '[127.0.0.1]:%s %s\n' "$SSHD_PORT" "$(cut -d' ' -f1,2 "$W/other.pub")" >"$W/etc/ssh/known_hosts"
  before=$(cat "$W/etc/ssh/known_hosts")
  run ssh_steps
  [ "$status" -ne 0 ]
  [[ "$output" == *"differs from the one pinned"* ]]
  [ "$(cat "$W/etc/ssh/known_hosts")" = "$before" ]
}

@test "the check fails against an unpinned host instead of trusting it" {
  run ssh_steps
  [ "$status" -eq 0 ]
  : >"$BATS_TEST_TMPDIR/empty_known_hosts"
  run bash -c '. "$1/scripts/lib/common.sh"; . "$1/scripts/lib/ssh.sh"; svc_ssh_check "$(id -un)" "$2" "$3" "$4"' _ \
    "$REPO" "$W/ssh/id_ed25519" "$BATS_TEST_TMPDIR/empty_known_hosts" "$SSHD_PORT"
  [ "$status" -ne 0 ]
  [ ! -s "$BATS_TEST_TMPDIR/empty_known_hosts" ]
}

@test "preflight's SSH check passes once the setup is done" {
  run ssh_steps
  [ "$status" -eq 0 ]
  others=$("$REPO/scripts/preflight-check.sh" --list | grep -vx ssh-localhost | paste -sd, -)
  run "$REPO/scripts/preflight-check.sh" --skip "$others"
  [ "$status" -eq 0 ]
  [[ "$output" == *"[PASS] ssh-localhost"* ]]
}

@test "no script disables host key checking" {
  run grep -rnE 'StrictHostKeyChecking[= ]+(no|off|accept-new)|UserKnownHostsFile[= ]+/dev/null' \
    "$REPO/scripts" "$REPO/deploy-with-workflows.sh" "$REPO/deploy-fastmcp-production.sh" "$REPO/compose" "$REPO/nginx"
  [ "$status" -eq 1 ]
}
