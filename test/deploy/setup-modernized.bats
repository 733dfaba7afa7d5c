#!/usr/bin/env bats
# The plugin-based setup: setup_modernized.sh runs svc-plugins for this host's OS plugin, the
# preflight checks and deploy-svc.sh; setup.sh maps the legacy variables. Dry runs only, with
# commands that change the system replaced by stand-ins (make_shims) and every path in a sandbox.

load helpers

setup() {
  dry_run_sandbox
}

assert_nothing_changed() {
  sandbox_untouched
}

@test "setup_modernized.sh --dry-run: this host's plugin plans with svc-plugins, the preflight reports, deploy-svc.sh follows" {
  dry "$REPO/scripts/development/setup_modernized.sh" --dry-run
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ "$output" == *"==> OS plugin: debian12"*"==> host preparation: svc-plugins deploy --plugin debian12"*"dry run: plugin debian12 on local"* ]]
  [[ "$output" == *"would write $SB/bin/svc-plugins (runs $REPO/packages/plugins/bin/svc-plugins)"* ]]
  [[ "$output" == *"[SKIP] ssh-localhost"*"Summary: "*"step 1/7: packages"*"step 7/7"* ]]
  assert_nothing_changed
}

@test "setup_modernized.sh takes the older plugin names, and svc-plugins refuses a plugin for another OS" {
  dry "$REPO/scripts/development/setup_modernized.sh" --dry-run --plugin centos9
  [ "$status" -ne 0 ]
  [[ "$output" == *"OS plugin: centos-stream9"* ]]
  [[ "$output" == *"plugin centos-stream9 does not fit local"* ]]
  [[ "$output" != *"step 1/7"* ]]
  assert_nothing_changed
}

@test "setup.sh maps the legacy variables, ignores the password, and runs setup_modernized.sh" {
  unset SVC_SSH_USER
  ENV_USERNAME=$(id -un) DOMAIN=lab.legacy.test SSH_PASSWORD=legacy-s3cret INVENTORY=equinix OS_PLUGIN=debian12 \
    dry "$REPO/scripts/development/setup.sh" --dry-run
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ "$output" == *"deprecated"* ]]
  [[ "$output" == *"SVC_SSH_USER=$(id -un) (from the legacy SSH_USER/ENV_USERNAME)"* ]]
  [[ "$output" == *"SVC_DOMAIN=lab.legacy.test (from the legacy DOMAIN)"* ]]
  [[ "$output" == *"SSH_PASSWORD is set but no longer used"* && "$output" == *"INVENTORY is set but no longer used"* ]]
  [[ "$output" != *"legacy-s3cret"* ]]
  [[ "$output" == *"OS plugin: debian12"*"step 7/7"* ]]
  assert_nothing_changed
}
