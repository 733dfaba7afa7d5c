#!/usr/bin/env bats
# scripts/preflight-check.sh on this machine: every check runs, failures set the exit status,
# the check ids are stable, --json parses (with a fix_hint on every check that did not pass),
# --fix --dry-run lists repairs without making them.

load helpers

PF=$BATS_TEST_DIRNAME/../../scripts/preflight-check.sh

setup() {
  SANDBOX=$BATS_TEST_TMPDIR/sandbox
  mkdir -p "$SANDBOX"
  # SSH settings that point into an empty sandbox: the SSH check fails, the repair is listed.
  SVC_SSH_USER=$(id -un)
  export SVC_SSH_USER SVC_SSH_KEY_PATH=$SANDBOX/ssh/id_ed25519 SVC_SSH_KNOWN_HOSTS=$SANDBOX/known_hosts \
    SVC_SSH_AUTHORIZED_KEYS=$SANDBOX/authorized_keys SVC_ENV_FILE=$SANDBOX/svc.env SVC_CONFIG_DIR=$SANDBOX/etc
}

all_checks() { "$PF" --list; }

@test "--help describes the options" {
  run "$PF" --help
  [ "$status" -eq 0 ]
  for o in --fix --dry-run --json --skip --list; do [[ "$output" == *"$o"* ]]; done
}

@test "unknown options are refused" {
  run "$PF" --frobnicate
  [ "$status" -eq 2 ]
}

@test "--skip refuses an unknown check id (a misspelt id would run the check it meant to skip)" {
  run "$PF" --skip os,ssh-locahost
  [ "$status" -eq 2 ]
  [[ "$output" == *"unknown check id for --skip: ssh-locahost (known: os memory"* ]]
}

@test "every check runs and is listed even when the first one fails" {
  SVC_OS_RELEASE_FILE=$FIXTURES/os-release/plan9 run "$PF"
  [ "$status" -eq 1 ]
  [[ "${lines[1]}" == "[FAIL] os"* ]]
  mapfile -t names < <(all_checks)
  [ "${#names[@]}" -ge 16 ]
  reported=$(grep -oE '^\[(PASS|WARN|FAIL|SKIP)\] [a-z-]+' <<<"$output" | awk '{print $2}')
  [ "$reported" = "$(printf '%s\n' "${names[@]}")" ]
  [[ "$output" == *"(${#names[@]} checks)"* ]]
}

@test "the checks cover OS, RAM, disk, virtualization, libvirt, commands, ports, SSH and DNS" {
  run all_checks
  for c in os memory disk cpu-virtualization kvm-device libvirt cmd-ssh cmd-ansible-playbook cmd-virsh vm-cli compose \
    container-engine port-assistant port-web-ui ssh-localhost dns; do
    grep -qx "$c" <<<"$output"
  done
}

@test "the exit status is 0 when nothing fails (warnings do not fail)" {
  skip_all=$(all_checks | grep -vx os | paste -sd, -)
  SVC_OS_RELEASE_FILE=$FIXTURES/os-release/rocky-9 run "$PF" --skip "$skip_all"
  [ "$status" -eq 0 ]
  [[ "$output" == *"[PASS] os"*"Rocky Linux 9.4"* ]]
  [[ "$output" == *"Summary: 1 passed, 0 warnings, 0 failed, $(all_checks | grep -vcx os) skipped"* ]]
  SVC_OS_RELEASE_FILE=$FIXTURES/os-release/debian-12 run "$PF" --skip "$skip_all"
  [ "$status" -eq 0 ]
  [[ "$output" == *"[WARN] os"* ]]
}

@test "a port in use fails its check, the summary counts it and the exit status is 1" {
  mapfile -t p < <(free_ports 2)
  node -e 'require("net").createServer().listen(Number(process.argv[1]), "127.0.0.1")' "${p[0]}" 3>&- &
  listener=$!
  wait_port "${p[0]}"
  only_ports=$(all_checks | grep -v '^port-' | paste -sd, -)
  SVC_ASSISTANT_PUBLISHED_PORT=${p[0]} SVC_WEB_UI_PUBLISHED_PORT=${p[1]} run "$PF" --skip "$only_ports"
  kill "$listener"
  [ "$status" -eq 1 ]
  [[ "$output" == *"[FAIL] port-assistant"*"port ${p[0]} (AI assistant) is already in use"* ]]
  [[ "$output" == *"[PASS] port-web-ui"*"port ${p[1]}"* ]]
  [[ "$output" == *"Summary: 1 passed, 0 warnings, 1 failed, $(all_checks | grep -vc '^port-') skipped"* ]]
}

@test "the check ids are stable: --list prints exactly these, in this order" {
  run all_checks
  [ "$status" -eq 0 ]
  [ "$output" = "$(printf '%s\n' os memory disk cpu-cores cpu-virtualization kvm-device libvirt cmd-ssh cmd-ansible-playbook \
    cmd-virsh vm-cli compose container-engine port-assistant port-web-ui ssh-localhost dns)" ]
}

@test "--json prints one JSON document on stdout: id, PASS|WARN|FAIL, message, and a fix_hint on every check that did not pass" {
  count=$(all_checks | wc -l)
  run bash -c '"$1" --json 2>/dev/null' _ "$PF"
  [ "$status" -le 1 ]
  run node -e '
    const r = JSON.parse(process.argv[1]);
    const n = (s) => r.checks.filter((c) => c.status === s).length;
    if (r.checks.length !== Number(process.argv[2])) throw new Error("checks: " + r.checks.length);
    for (const c of r.checks) {
      if (!/^[a-z][a-z-]*$/.test(c.id) || !["PASS", "WARN", "FAIL"].includes(c.status) || !c.message) throw new Error("bad check " + JSON.stringify(c));
      if (c.status === "PASS" ? c.fix_hint !== null : !(typeof c.fix_hint === "string" && c.fix_hint.length > 10)) throw new Error("fix_hint " + JSON.stringify(c));
    }
    if (n("PASS") !== r.summary.pass || n("WARN") !== r.summary.warn || n("FAIL") !== r.summary.fail) throw new Error("summary");
    if (r.summary.ok !== (r.summary.fail === 0) || r.skipped.length !== 0) throw new Error("ok flag / skipped");
    const ssh = r.checks.find((c) => c.id === "ssh-localhost");
    console.log(ssh.status, ssh.fix_hint);
  ' "$output" "$count"
  [ "$status" -eq 0 ]
  [[ "$output" == "FAIL --fix starts sshd"*"creates the key $SANDBOX/ssh/id_ed25519"*"pins the host key in $SANDBOX/known_hosts" ]]
}

@test "--json lists skipped ids apart; a failed check has the same hint in the text output" {
  only_os=$(all_checks | grep -vx os | paste -sd, -)
  SVC_OS_RELEASE_FILE=$FIXTURES/os-release/plan9 run bash -c '"$1" --json --skip "$2" 2>/dev/null' _ "$PF" "$only_os"
  [ "$status" -eq 1 ]
  run node -e '
    const r = JSON.parse(process.argv[1]);
    if (r.checks.length !== 1 || r.checks[0].id !== "os" || r.checks[0].status !== "FAIL") throw new Error(process.argv[1]);
    if (r.skipped.join(",") !== process.argv[2]) throw new Error("skipped " + r.skipped);
    console.log(r.checks[0].fix_hint);
  ' "$output" "$only_os"
  [ "$status" -eq 0 ]
  hint=$output
  [[ "$hint" == *"Rocky Linux 9"*"not repairable by --fix" ]]
  SVC_OS_RELEASE_FILE=$FIXTURES/os-release/plan9 run "$PF" --skip "$only_os"
  [[ "$output" == *"[FAIL] os"*"fix: $hint"* ]]
}

@test "--json exit status matches the failures" {
  SVC_OS_RELEASE_FILE=$FIXTURES/os-release/plan9 run bash -c '"$1" --json 2>/dev/null' _ "$PF"
  [ "$status" -eq 1 ]
  [[ "$output" == *'"id":"os","status":"FAIL"'* ]]
  [[ "$output" == *'"ok":false'* ]]
}

@test "--fix --dry-run lists the repairs and changes nothing" {
  before=$(find "$SANDBOX" | sort)
  SVC_OS_RELEASE_FILE=$FIXTURES/os-release/plan9 run "$PF" --fix --dry-run
  [ "$status" -eq 1 ]
  [[ "$output" == *"--fix --dry-run"* ]]
  [[ "$output" == *"would run: ssh-keygen -q -t ed25519 -N '' "*"-f $SANDBOX/ssh/id_ed25519"* ]]
  [[ "$output" == *"would add $SANDBOX/ssh/id_ed25519.pub to $SANDBOX/authorized_keys"* ]]
  [[ "$output" == *"would run: ssh-keyscan"*"$SANDBOX/known_hosts"* ]]
  [[ "$output" == *"would repair (steps listed above): ssh-localhost"* ]]
  [[ "$output" == *"not repaired: os: cannot be repaired by this script"* ]]
  [ "$(find "$SANDBOX" | sort)" = "$before" ]
}

@test "--fix --dry-run --json reports the planned repairs" {
  run bash -c '"$1" --fix --dry-run --json 2>/dev/null' _ "$PF"
  run node -e 'const r = JSON.parse(process.argv[1]); if (!r.fix.dry_run || !r.fix.repaired.includes("ssh-localhost")) process.exit(1)' "$output"
  [ "$status" -eq 0 ]
}

@test "no ((x++)) counters: they stop a script under set -e when x is 0" {
  found=$(grep -nE '\(\( *[A-Za-z_]+ *(\+\+|--) *\)\)' "$REPO/scripts/preflight-check.sh" "$REPO"/scripts/lib/*.sh | grep -vE ':[0-9]+: *#' || true)
  [ -z "$found" ]
}

# pf_check_dns alone, with the libraries the preflight script loads; prints "STATUS MESSAGE".
dns_check() {
  bash -c '. "$1/common.sh"; . "$1/os.sh"; . "$1/ssh.sh"; . "$1/compose.sh"; . "$1/offline-images.sh"; . "$1/preflight-checks.sh"; pf_check_dns; printf "%s %s\n" "$PF_STATUS" "$PF_MSG"' _ "$REPO/scripts/lib"
}

# A PATH with the tools the check needs and, when asked, a debootstrap stand-in (only its presence is read).
dns_path() {
  local dir=$BATS_TEST_TMPDIR/dns-bin t
  mkdir -p "$dir"
  for t in bash getent timeout hostname cat awk sed cut sha256sum dirname; do ln -sf "$(command -v "$t")" "$dir/$t"; done
  if [ "${1:-}" = with-debootstrap ]; then printf '#!/bin/sh\nexit 0\n' >"$dir/debootstrap" && chmod 755 "$dir/debootstrap"; fi
  printf '%s' "$dir"
}

# dns_check (run) where the registry and the Debian mirror do not resolve; with-debootstrap: the
# offline base images could be built from the mirror.
dns_check_registry_unresolvable() {
  run env PATH="$(dns_path "$@")" SVC_DEBIAN_MIRROR=http://mirror.invalid/debian \
    SVC_PREFLIGHT_DNS_NAMES="localhost registry.invalid" SVC_PREFLIGHT_REGISTRY_NAMES=registry.invalid \
    bash -c "$(declare -f dns_check); dns_check"
}

@test "dns: a host name that does not resolve fails the check" {
  run env SVC_PREFLIGHT_DNS_NAMES="localhost host.invalid" bash -c "$(declare -f dns_check); dns_check"
  [ "$status" -eq 0 ]
  [[ "$output" == "fail cannot resolve: host.invalid" ]]
}

@test "dns: an unresolvable registry only warns when the offline base images can be built from the apt mirror" {
  dns_check_registry_unresolvable with-debootstrap
  [ "$status" -eq 0 ]
  [[ "$output" == "warn cannot resolve the registry registry.invalid: the official base images cannot be pulled; the offline images serve instead (buildable from http://mirror.invalid/debian)" ]]
}

@test "dns: an unresolvable registry fails, saying what would help, when no offline images can serve" {
  dns_check_registry_unresolvable
  [ "$status" -eq 0 ]
  [[ "$output" == "fail cannot resolve the registry registry.invalid, and no offline base images: "*"install debootstrap"* ]]
}
