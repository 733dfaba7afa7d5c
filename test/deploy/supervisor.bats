#!/usr/bin/env bats
# The host install's process supervisor (scripts/lib/supervisor.sh): systemd unit text, and the
# nohup mode started and stopped for real on a stand-in project whose `pnpm start` sleeps.

load helpers

setup() {
  export SVC_RUN_DIR=$BATS_TEST_TMPDIR/run SVC_LOG_DIR=$BATS_TEST_TMPDIR/log SVC_UNIT_DIR=$BATS_TEST_TMPDIR/units
  P=$BATS_TEST_TMPDIR/project
  mkdir -p "$P"
  printf '{ "name": "stand-in", "private": true, "scripts": { "start": "echo started; exec sleep 300" } }\n' >"$P/package.json"
}

sup() { bash -c 'set -euo pipefail; for f in common os supervisor; do . "$1/scripts/lib/$f.sh"; done; shift; "$@"' _ "$REPO" "$@"; }

@test "systemd unit: env file, working directory, user, tsx entry, restart on failure" {
  run sup svc_unit_text worker svcops /opt/svc /etc/svc/svc.env
  [ "$status" -eq 0 ]
  for l in "User=svcops" "WorkingDirectory=/opt/svc" "EnvironmentFile=/etc/svc/svc.env" "Restart=on-failure" "WantedBy=multi-user.target"; do
    grep -qx "$l" <<<"$output"
  done
  grep -qE '^ExecStart=/.*node --require tsx/cjs services/worker/src/main.ts$' <<<"$output"
}

@test "nohup mode: starts pnpm start in its own process group with a pid file and a log, then stops it" {
  run sup svc_supervise_nohup "$(id -un)" "$P"
  [ "$status" -eq 0 ]
  pid=$(cat "$SVC_RUN_DIR/svc.pid")
  kill -0 "$pid"
  # The pid leads its own process group (setsid), so stopping reaches pnpm's children too.
  [ "$(ps -o pgid= -p "$pid" | tr -d ' ')" = "$pid" ]
  for _ in $(seq 1 50); do grep -q started "$SVC_LOG_DIR/svc.log" && break; sleep 0.2; done
  grep -q started "$SVC_LOG_DIR/svc.log"
  sleeper=$(pgrep -g "$pid" -x sleep)
  run sup svc_stop_nohup
  [ "$status" -eq 0 ]
  run ! kill -0 "$pid"
  run ! kill -0 "$sleeper"
  [ ! -f "$SVC_RUN_DIR/svc.pid" ]
}

@test "nohup mode: a second start restarts the running stack" {
  sup svc_supervise_nohup "$(id -un)" "$P" >/dev/null
  first=$(cat "$SVC_RUN_DIR/svc.pid")
  run sup svc_supervise_nohup "$(id -un)" "$P"
  [[ "$output" == *"restarting"* ]]
  second=$(cat "$SVC_RUN_DIR/svc.pid")
  [ "$first" != "$second" ]
  run ! kill -0 "$first"
  sup svc_stop_nohup >/dev/null
  run ! kill -0 "$second"
}

@test "the VM CLI wrapper runs this checkout's svc-vm; a separately installed svc-vm is kept" {
  export SVC_BIN_DIR=$BATS_TEST_TMPDIR/bin
  unset SVC_VM_CLI
  run bash -c '. "$1/scripts/lib/common.sh"; . "$1/scripts/lib/deploy-steps.sh"; svc_install_vm_cli' _ "$REPO"
  [ "$status" -eq 0 ]
  [ -x "$SVC_BIN_DIR/svc-vm" ]
  run "$SVC_BIN_DIR/svc-vm" --help
  [ "$status" -eq 0 ]
  [[ "$output" == *"Usage: svc-vm"* ]]
  printf '#!/bin/sh\necho mine\n' >"$SVC_BIN_DIR/svc-vm"
  run bash -c '. "$1/scripts/lib/common.sh"; . "$1/scripts/lib/deploy-steps.sh"; svc_install_vm_cli' _ "$REPO"
  [[ "$output" == *"installed separately, kept"* ]]
  [ "$("$SVC_BIN_DIR/svc-vm")" = mine ]
}
