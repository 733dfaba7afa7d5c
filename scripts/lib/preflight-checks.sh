# shellcheck shell=bash disable=SC2034 # PF_CHECKS, PF_STATUS, PF_MSG are read by preflight-check.sh
# The preflight checks. Each pf_check_<name> sets PF_STATUS (pass|warn|fail) and PF_MSG and
# changes nothing. Needs common.sh, os.sh, ssh.sh, compose.sh, offline-images.sh.

PF_CHECKS=(os memory disk cpu-cores cpu-virtualization kvm-device libvirt cmd-ssh cmd-ansible-playbook
  cmd-virsh vm-cli compose container-engine port-assistant port-web-ui ssh-localhost dns)

pf_pass() { PF_STATUS=pass PF_MSG=$*; }
pf_warn() { PF_STATUS=warn PF_MSG=$*; }
pf_fail() { PF_STATUS=fail PF_MSG=$*; }

pf_check_os() {
  local name
  name=$(svc_os_name)
  case "$(svc_os_support)" in
    official) pf_pass "$name (supported)" ;;
    tolerated) pf_warn "$name: works, but RHEL 9, CentOS Stream 9/10 and Rocky Linux 9 are the supported systems" ;;
    *) pf_fail "${name:-unknown OS}: not supported (use RHEL 9, CentOS Stream 9 or 10, or Rocky Linux 9)" ;;
  esac
}

# A measure WHAT of HAVE against a minimum and a recommended amount: fail below the minimum (FAIL
# said after WHAT), warn below the recommendation (WARN), pass otherwise.
pf_at_least() {
  local have=$1 minimum=$2 recommended=$3 what=$4 fail=$5 warn=$6
  if [ "$have" -lt "$minimum" ]; then
    pf_fail "$what: $fail"
  elif [ "$have" -lt "$recommended" ]; then
    pf_warn "$what: $warn"
  else
    pf_pass "$what"
  fi
}

pf_check_memory() {
  local kb gib
  kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
  gib=$((kb / 1048576))
  # 7.5 GiB: an "8 GB" machine reports a little less than 8 GiB after the kernel's share.
  pf_at_least "$kb" 7864320 15728640 "${gib} GiB RAM" "at least 8 GB is needed" "8 GB is the minimum, 16 GB or more is recommended"
}

pf_check_disk() {
  local dir=${SVC_DATA_DIR:-/var/lib} kb gb
  [ -d "$dir" ] || dir=/
  kb=$(df -Pk "$dir" | awk 'NR == 2 {print $4}')
  gb=$((kb * 1024 / 1000000000))
  pf_at_least "$gb" 50 100 "${gb} GB free on $dir" "at least 50 GB is needed" "50 GB is the minimum, 100 GB or more is recommended"
}

pf_check_cpu_cores() {
  local n
  n=$(nproc)
  if [ "$n" -ge 4 ]; then pf_pass "$n CPU cores"; else pf_warn "$n CPU cores: 4 or more are recommended"; fi
}

pf_check_cpu_virtualization() {
  if grep -qw vmx /proc/cpuinfo; then
    pf_pass "Intel VT-x (vmx) available"
  elif grep -qw svm /proc/cpuinfo; then
    pf_pass "AMD-V (svm) available"
  else
    pf_fail "no vmx/svm CPU flag: enable VT-x/AMD-V in the firmware (or nested virtualization for a VM host); VMs would run unaccelerated"
  fi
}

pf_check_kvm_device() {
  local group mode
  if [ ! -c /dev/kvm ]; then
    pf_fail "/dev/kvm is missing (kvm_intel or kvm_amd not loaded, or virtualization disabled)"
    return 0
  fi
  group=$(stat -c %G /dev/kvm)
  mode=$(stat -c %a /dev/kvm)
  if [ "$group" = kvm ] && { [ "$mode" = 660 ] || [ "$mode" = 666 ]; }; then
    pf_pass "/dev/kvm (group $group, mode $mode)"
  else
    pf_fail "/dev/kvm has group $group and mode $mode: expected group kvm and mode 660"
  fi
}

pf_check_libvirt() {
  if ! svc_have virsh; then
    pf_fail "virsh is not installed, so libvirt cannot be checked"
  elif timeout 15 virsh -c qemu:///system version >/dev/null 2>&1; then
    pf_pass "libvirtd answers on qemu:///system"
  else
    pf_fail "libvirtd does not answer on qemu:///system (not running?)"
  fi
}

pf_check_command() {
  local cmd=$1
  if svc_have "$cmd"; then pf_pass "$(command -v "$cmd")"; else pf_fail "$cmd not found (package: $(svc_pkg_for "$cmd"))"; fi
}
pf_check_cmd_ssh() { pf_check_command ssh; }
pf_check_cmd_ansible_playbook() { pf_check_command ansible-playbook; }
pf_check_cmd_virsh() { pf_check_command virsh; }

# The VM CLI the workflow engine runs on this host over SSH: SVC_VM_CLI (a path or a JSON array),
# else svc-vm, else kcli. A warning: workflows without VMs still run.
pf_check_vm_cli() {
  local first=${SVC_VM_CLI:-}
  if [ -n "$first" ]; then
    if [[ "$first" == \[* ]]; then first=$(printf '%s' "$first" | sed -E 's/^\[ *"([^"]+)".*/\1/'); fi
    if svc_have "$first" || [ -x "$first" ]; then pf_pass "SVC_VM_CLI: $first"; else pf_warn "SVC_VM_CLI names $first, which is not installed"; fi
  elif svc_have svc-vm; then
    pf_pass "$(command -v svc-vm)"
  elif svc_have kcli; then
    pf_pass "kcli: $(command -v kcli)"
  else
    pf_warn "no VM CLI on PATH (svc-vm or kcli): VM tasks will fail; install the host layer (scripts/development/deploy-svc.sh) or set SVC_VM_CLI"
  fi
}

pf_check_compose() {
  if svc_compose_detect; then pf_pass "${SVC_COMPOSE[*]}"; else pf_fail "no compose tool (docker compose, docker-compose, podman compose or podman-compose)"; fi
}

pf_check_container_engine() {
  local engine
  if engine=$(svc_container_engine); then
    pf_pass "$engine answers"
  elif svc_have docker; then
    pf_fail "the docker CLI is installed but no docker engine answers (is dockerd running?)"
  else
    pf_fail "neither docker nor podman is installed"
  fi
}

# Is anything listening on TCP port $1 (IPv4 or IPv6, any address)? Reads /proc, needs no tools.
pf_port_listening() {
  local hex
  hex=$(printf '%04X' "$1")
  awk -v p=":$hex" 'FNR > 1 && $4 == "0A" && substr($2, length($2) - 4) == p {found = 1} END {exit !found}' \
    /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

pf_check_port() {
  local port=$1 what=$2
  if pf_port_listening "$port"; then
    pf_fail "port $port ($what) is already in use: stop what listens there, or set the published port"
  else
    pf_pass "port $port ($what) is free"
  fi
}
pf_check_port_assistant() { pf_check_port "${SVC_ASSISTANT_PUBLISHED_PORT:-8080}" "AI assistant"; }
pf_check_port_web_ui() { pf_check_port "${SVC_WEB_UI_PUBLISHED_PORT:-8888}" "workflow UI"; }

pf_check_ssh_localhost() {
  local user key kh port
  user=$(svc_ssh_user)
  port=$(svc_ssh_port)
  kh=$(svc_ssh_known_hosts)
  if ! key=$(svc_ssh_key_path "$user"); then pf_fail "SSH user $user does not exist"; return 0; fi
  if ! svc_have ssh; then pf_fail "ssh is not installed"; return 0; fi
  if [ ! -f "$key" ]; then pf_fail "no SSH key at $key for user $user"; return 0; fi
  if [ ! -f "$kh" ] || ! ssh-keygen -F "$(svc_ssh_host_names "$port" | cut -d, -f1)" -f "$kh" >/dev/null 2>&1; then
    pf_fail "this host's SSH key is not pinned in $kh"
    return 0
  fi
  if svc_ssh_check "$user" "$key" "$kh" "$port" >/dev/null 2>&1; then
    pf_pass "ssh $user@127.0.0.1 -p $port works with $key (host key pinned in $kh)"
  else
    pf_fail "ssh $user@127.0.0.1 -p $port with $key failed (sshd not running, key not in authorized_keys, or host key changed)"
  fi
}

# Names that must resolve: this host's own name, and the public registry the official base images
# come from. A registry that does not resolve only warns when the offline base images serve instead
# (present, or buildable from this machine's Debian mirror: deploy-with-workflows.sh builds them).
pf_check_dns() {
  local names=${SVC_PREFLIGHT_DNS_NAMES:-"$(hostname) registry-1.docker.io"} n bad="" registry="" offline
  local registries=" ${SVC_PREFLIGHT_REGISTRY_NAMES:-registry-1.docker.io} "
  for n in $names; do
    timeout 10 getent ahosts "$n" >/dev/null 2>&1 && continue
    if [[ "$registries" == *" $n "* ]]; then registry+=" $n"; else bad+=" $n"; fi
  done
  if [ -n "$bad" ]; then
    pf_fail "cannot resolve:$bad${registry:+ (nor the registry:$registry)}"
  elif [ -z "$registry" ]; then
    pf_pass "resolved: $names"
  elif offline=$(svc_offline_available); then
    pf_warn "cannot resolve the registry$registry: the official base images cannot be pulled; the offline images serve instead ($offline)"
  else
    pf_fail "cannot resolve the registry$registry, and no offline base images: give this host DNS and a route to the registry, or install debootstrap and configure a bookworm apt mirror so scripts/build-offline-images.sh can build them"
  fi
}
