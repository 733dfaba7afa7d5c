#!/usr/bin/env bats
# The deployment env file (scripts/lib/env-file.sh): root-only, generated secrets never printed,
# values never interpreted, and what the deploy steps write is what compose/compose.yaml needs.

load helpers

setup() {
  F=$BATS_TEST_TMPDIR/etc/svc.env
  unset SVC_ADMIN_PASSWORD SVC_API_TOKEN SVC_POSTGRES_PASSWORD SVC_REDIS_PASSWORD MODEL_PROVIDER_API_KEY
}

lib() { bash -c 'set -euo pipefail; for f in common env-file ssh deploy-steps; do . "$1/scripts/lib/$f.sh"; done; shift; eval "$1"' _ "$REPO" "$1"; }

@test "the env file is created with mode 600" {
  run lib 'svc_env_ensure_file "'"$F"'"'
  [ "$status" -eq 0 ]
  [ "$(stat -c %a "$F")" = 600 ]
}

@test "a too-open env file is tightened to 600" {
  mkdir -p "$(dirname "$F")" && touch "$F" && chmod 644 "$F"
  run lib 'svc_env_ensure_file "'"$F"'"'
  [ "$status" -eq 0 ]
  [[ "$output" == *"had mode 644; setting 600"* ]]
  [ "$(stat -c %a "$F")" = 600 ]
}

@test "generated secrets are stored, not printed, and kept on the next run" {
  run lib 'svc_env_ensure_file "'"$F"'"; svc_env_ensure_secret "'"$F"'" SVC_API_TOKEN'
  [ "$status" -eq 0 ]
  token=$(sed -n 's/^SVC_API_TOKEN=//p' "$F")
  [[ "$token" =~ ^[0-9a-f]{48}$ ]]
  [[ "$output" == *"SVC_API_TOKEN: generated (stored in $F)"* ]]
  [[ "$output" != *"$token"* ]]
  run lib 'svc_env_ensure_secret "'"$F"'" SVC_API_TOKEN'
  [[ "$output" == *"kept"* ]]
  [ "$(sed -n 's/^SVC_API_TOKEN=//p' "$F")" = "$token" ]
}

@test "a secret given in the environment is stored without being printed" {
  # shellcheck disable=SC2016 # expanded by the inner shell, not here
  run env MODEL_PROVIDER_API_KEY=sk-from-env bash -c 'set -euo pipefail; . "$1/scripts/lib/common.sh"; . "$1/scripts/lib/env-file.sh"
    svc_env_ensure_file "$2"; svc_deploy_credentials() { :; }; svc_env_ensure_secret "$2" MODEL_PROVIDER_API_KEY' _ "$REPO" "$F"
  [ "$status" -eq 0 ]
  grep -qx 'MODEL_PROVIDER_API_KEY=sk-from-env' "$F"
  [[ "$output" != *"sk-from-env"* ]]
}

@test "values are stored and read back verbatim, never run" {
  mark=$BATS_TEST_TMPDIR/ran
  # shellcheck disable=SC2016 # expanded by the inner shell, not here
  value='a b "c" $(touch '"$mark"') `touch '"$mark"'` $HOME; x=1'
  run bash -c 'set -euo pipefail; . "$1/scripts/lib/common.sh"; . "$1/scripts/lib/env-file.sh"
    svc_env_ensure_file "$2" >/dev/null; svc_env_set "$2" ODD "$3"; svc_env_set "$2" OTHER 1; svc_env_set "$2" ODD "$3"
    printf "%s" "$(svc_env_get "$2" ODD)"; unset ODD; svc_env_export "$2"; printf "|%s" "$ODD"' _ "$REPO" "$F" "$value"
  [ "$status" -eq 0 ]
  [ "$output" = "$value|$value" ]
  [ ! -e "$mark" ]
  [ "$(grep -c '^ODD=' "$F")" -eq 1 ]
  [ "$(stat -c %a "$F")" = 600 ]
}

@test "the environment wins over the env file when exporting" {
  mkdir -p "$(dirname "$F")"
  printf 'SVC_DOMAIN=from.file\nSVC_CLUSTER_NAME=file-cluster\n# comment\nnot a line\n' >"$F"
  # shellcheck disable=SC2016 # expanded by the inner shell, not here
  run env SVC_DOMAIN=from.env bash -c '. "$1/scripts/lib/common.sh"; . "$1/scripts/lib/env-file.sh"; svc_env_export "$2"; echo "$SVC_DOMAIN $SVC_CLUSTER_NAME"' _ "$REPO" "$F"
  [ "$output" = "from.env file-cluster" ]
}

@test "the env file the deploy steps write is complete for compose/compose.yaml" {
  SVC_SSH_USER=$(id -un)
  export SVC_SSH_USER SVC_SSH_KEY_PATH=$BATS_TEST_TMPDIR/id_ed25519 SVC_SSH_KNOWN_HOSTS=$BATS_TEST_TMPDIR/known_hosts \
    SVC_INVENTORY_DIR=$BATS_TEST_TMPDIR/inventory SVC_VAULT_PASSWORD_FILE=$BATS_TEST_TMPDIR/vault-password SVC_CONFIG_DIR=$BATS_TEST_TMPDIR/etc \
    SVC_HOSTS_KEYS_DIR=$BATS_TEST_TMPDIR/hosts-keys
  # shellcheck disable=SC2016 # expanded by the inner shell, not here
  run lib 'F="'"$F"'"; svc_env_ensure_file "$F"; svc_deploy_credentials "$F"; svc_env_ensure_secret "$F" SVC_POSTGRES_PASSWORD
    svc_env_ensure_secret "$F" SVC_REDIS_PASSWORD; svc_deploy_ssh_settings "$F"; svc_deploy_host_files "$F"'
  [ "$status" -eq 0 ]
  [ "$(stat -c %a "$SVC_VAULT_PASSWORD_FILE")" = 600 ]
  [ -d "$SVC_INVENTORY_DIR" ]
  # The further hosts' keys: a directory only the SSH user reads, recorded for compose.
  [ "$(stat -c %a "$SVC_HOSTS_KEYS_DIR")" = 700 ]
  grep -qx "SVC_HOSTS_KEYS_DIR=$SVC_HOSTS_KEYS_DIR" "$F"
  # Only the env file: nothing from this shell may fill the gaps.
  unset SVC_SSH_USER SVC_SSH_KEY_PATH SVC_SSH_KNOWN_HOSTS SVC_INVENTORY_DIR SVC_VAULT_PASSWORD_FILE SVC_HOSTS_KEYS_DIR
  read -r -a COMPOSE <<<"$(compose_cmd)"
  run "${COMPOSE[@]}" -f "$REPO/compose/compose.yaml" --env-file "$F" --profile mcp config -q
  [ "$status" -eq 0 ]
  for k in SVC_ADMIN_USER SVC_ADMIN_PASSWORD SVC_API_TOKEN SVC_DEPLOYMENT_MODE SVC_POSTGRES_PASSWORD SVC_REDIS_PASSWORD; do
    grep -q "^$k=" "$F"
  done
  grep -qx 'SVC_DEPLOYMENT_MODE=production' "$F"
}
