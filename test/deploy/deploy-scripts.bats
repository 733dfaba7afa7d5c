#!/usr/bin/env bats
# The deployment entry points: --help, and --dry-run printing the steps while changing nothing.
# Commands that change the system are replaced by stand-ins that log and refuse (see make_shims);
# every path the scripts write to points into a sandbox that must stay empty.

load helpers

setup() {
  dry_run_sandbox
  HOME_SSH_BEFORE=$(ls -la "$HOME/.ssh" 2>/dev/null || true)
}

assert_nothing_changed() {
  sandbox_untouched
  [ "$(ls -la "$HOME/.ssh" 2>/dev/null || true)" = "$HOME_SSH_BEFORE" ]
}

@test "every entry point has --help" {
  for s in deploy-with-workflows.sh deploy-fastmcp-production.sh scripts/preflight-check.sh \
    scripts/development/deploy-svc.sh scripts/development/setup_modernized.sh scripts/development/setup.sh; do
    run "$REPO/$s" --help
    [ "$status" -eq 0 ] || { echo "$s --help: $status"; false; }
    [[ "$output" == *"Usage:"* ]] || { echo "$s --help: no usage"; false; }
  done
}

@test "unknown options are refused with status 2" {
  for s in deploy-with-workflows.sh deploy-fastmcp-production.sh scripts/development/deploy-svc.sh; do
    run "$REPO/$s" --no-such-option
    [ "$status" -eq 2 ]
  done
}

@test "deploy-with-workflows.sh --dry-run prints every step and changes nothing" {
  dry "$REPO/deploy-with-workflows.sh" --dry-run
  [ "$status" -eq 0 ]
  [[ "$output" == *"would run: $REPO/scripts/preflight-check.sh"* ]]
  [[ "$output" == *"would create $SB/etc/svc.env (mode 600)"* ]]
  for k in SVC_ADMIN_PASSWORD SVC_API_TOKEN SVC_POSTGRES_PASSWORD SVC_REDIS_PASSWORD; do
    [[ "$output" == *"would generate $k into $SB/etc/svc.env"* ]]
  done
  [[ "$output" == *"would run: ssh-keygen -q -t ed25519 -N '' "*"-f $SB/home/.ssh/id_ed25519"* ]]
  [[ "$output" == *"would add $SB/home/.ssh/id_ed25519.pub to $SB/home/.ssh/authorized_keys"* ]]
  [[ "$output" == *"would run: ssh-keyscan -p 22 127.0.0.1 and pin the keys in $SB/etc/ssh/known_hosts"*"host.docker.internal"* ]]
  [[ "$output" == *"StrictHostKeyChecking=yes"*"true"* ]]
  [[ "$output" == *"--env-file $SB/etc/svc.env -f $REPO/compose/compose.yaml up -d"* ]]
  [[ "$output" == *"would use node:20-bookworm-slim"* ]]
  [[ "$output" == *"would wait"*"/health"*"/api/v1/health"* ]]
  [[ "$output" == *"http://"*":8080"* && "$output" == *"http://"*":8888"* ]]
  assert_nothing_changed
}

@test "deploy-with-workflows.sh keeps existing secrets and never prints them" {
  mkdir -p "$BATS_TEST_TMPDIR/etc2"
  printf 'SVC_ADMIN_PASSWORD=s3cret-admin\nSVC_API_TOKEN=s3cret-token\n' >"$BATS_TEST_TMPDIR/etc2/svc.env"
  chmod 600 "$BATS_TEST_TMPDIR/etc2/svc.env"
  dry "$REPO/deploy-with-workflows.sh" --dry-run --env-file "$BATS_TEST_TMPDIR/etc2/svc.env"
  [ "$status" -eq 0 ]
  [[ "$output" == *"SVC_ADMIN_PASSWORD: kept"* ]]
  [[ "$output" == *"would generate SVC_POSTGRES_PASSWORD"* ]]
  [[ "$output" != *"s3cret"* ]]
  assert_nothing_changed
}

@test "deploy-fastmcp-production.sh --dry-run checks profile mcp and starts only the tool servers" {
  dry "$REPO/deploy-fastmcp-production.sh" --dry-run
  [ "$status" -eq 0 ]
  [[ "$output" == *"profile mcp: defined"* ]]
  [[ "$output" == *"mcp-workflow: defined"* && "$output" == *"mcp-assistant: defined"* ]]
  [[ "$output" == *"--profile mcp up -d --no-deps mcp-workflow mcp-assistant"* ]]
  [[ "$output" == *"$SB/etc/svc.env does not exist"* ]]
  assert_nothing_changed
}

@test "deploy-fastmcp-production.sh without --dry-run stops when the main deployment is missing" {
  dry "$REPO/deploy-fastmcp-production.sh"
  [ "$status" -ne 0 ]
  [[ "$output" == *"run ./deploy-with-workflows.sh first"* || "$output" == *"needs root"* ]]
  assert_nothing_changed
}

@test "deploy-svc.sh --dry-run prints the host install and changes nothing" {
  dry "$REPO/scripts/development/deploy-svc.sh" --dry-run
  [ "$status" -eq 0 ]
  [[ "$output" == *"OS plugin:"* ]]
  [[ "$output" == *"would create $SB/etc/svc.env (mode 600)"* ]]
  [[ "$output" == *"would run: pnpm install --frozen-lockfile"* ]]
  [[ "$output" == *"would run: pnpm exec svc-engine db migrate"* ]]
  if [ -d /run/systemd/system ]; then
    [[ "$output" == *"would write $SB/units/svc-scheduler.service"* ]]
  else
    [[ "$output" == *"setsid nohup pnpm start >>$SB/log/svc.log"*"(pid in $SB/run/svc.pid)"* ]]
  fi
  assert_nothing_changed
}

@test "deploy-svc.sh --dry-run --with-nginx renders the host nginx configuration" {
  dry "$REPO/scripts/development/deploy-svc.sh" --dry-run --with-nginx
  [ "$status" -eq 0 ]
  [[ "$output" == *"would set SVC_ASSISTANT_PORT=18080"* && "$output" == *"would set SVC_WEB_UI_PORT=18888"* ]]
  [[ "$output" == *"would write $SB/etc/nginx.conf (nginx/render-conf.sh --preset host)"* ]]
  assert_nothing_changed
}

@test "deploy-svc.sh refuses a plugin for another OS family" {
  case "$(. /etc/os-release && echo "${ID_LIKE:-} $ID")" in *debian*) other=rocky9 ;; *) other=debian12 ;; esac
  dry "$REPO/scripts/development/deploy-svc.sh" --dry-run --plugin "$other"
  [ "$status" -ne 0 ]
  [[ "$output" == *"does not match this host"* ]]
  dry "$REPO/scripts/development/deploy-svc.sh" --dry-run --plugin nosuchos
  [ "$status" -ne 0 ]
  assert_nothing_changed
}

@test "setup_modernized.sh lists the OS plugins and delegates to deploy-svc.sh" {
  run "$REPO/scripts/development/setup_modernized.sh" --list
  [ "$status" -eq 0 ]
  for p in rhel9 rhel10 centos-stream9 centos-stream10 rocky9 debian12; do grep -qE "^[* ] $p$" <<<"$output"; done
  dry "$REPO/scripts/development/setup_modernized.sh" --dry-run
  [ "$status" -eq 0 ]
  [[ "$output" == *"OS plugin:"*"step 1/7: packages"* ]]
  assert_nothing_changed
}

@test "setup.sh prints a deprecation note and runs deploy-svc.sh" {
  dry "$REPO/scripts/development/setup.sh" --dry-run
  [ "$status" -eq 0 ]
  [[ "$output" == *"deprecated"* ]]
  [[ "$output" == *"step 7/7"* ]]
  assert_nothing_changed
}
