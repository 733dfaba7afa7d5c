# shellcheck shell=bash disable=SC2034 # PF_FIX_NOTE are read by preflight-check.sh
# Repairs for preflight checks (--fix). Each pf_fix_<name> returns 0 when it did (or, in dry-run
# mode, would do) its repair, 1 with PF_FIX_NOTE saying why it cannot. Checks without a pf_fix_
# function (OS, RAM, disk, CPU, ports, DNS) are reported as not repairable.
# Needs common.sh, os.sh, ssh.sh.

pf_cannot() {
  PF_FIX_NOTE=$*
  return 1
}

# Install the packages for a logical tool (svc_pkg_for may name several; splitting is intended).
pf_install_for() {
  local pkgs
  pkgs=$(svc_pkg_for "$1")
  # shellcheck disable=SC2086
  svc_pkg_install $pkgs || pf_cannot "could not install $pkgs"
}

pf_fix_cmd_ssh() { pf_install_for ssh; }
pf_fix_cmd_ansible_playbook() {
  # RHEL: ansible-core is in AppStream; Debian: in main.
  pf_install_for ansible-playbook
}
pf_fix_cmd_virsh() { pf_install_for virsh; }
pf_fix_compose() { pf_install_for compose; }

pf_fix_container_engine() {
  if svc_have docker; then
    svc_systemd_running || pf_cannot "dockerd is not running and there is no systemd to start it: start the docker engine by hand" || return 1
    svc_run systemctl enable --now docker
  elif [ "$(svc_os_family)" = rhel ]; then
    svc_pkg_install podman
  else
    pf_cannot "install a container engine (Docker Engine from docker.com, or podman) by hand"
  fi
}

pf_fix_kvm_device() {
  if [ ! -c /dev/kvm ]; then
    if grep -qw vmx /proc/cpuinfo; then
      svc_run modprobe kvm_intel
    elif grep -qw svm /proc/cpuinfo; then
      svc_run modprobe kvm_amd
    else
      pf_cannot "no hardware virtualization: enable VT-x/AMD-V in the firmware first"
    fi
    return
  fi
  getent group kvm >/dev/null || svc_run groupadd --system kvm
  svc_run chgrp kvm /dev/kvm
  svc_run chmod 660 /dev/kvm
}

pf_fix_libvirt() {
  svc_have virsh || pf_install_for virsh || return 1
  svc_have libvirtd || svc_have virtqemud || pf_install_for libvirtd || return 1
  if svc_systemd_running; then
    if systemctl list-unit-files virtqemud.socket >/dev/null 2>&1; then
      svc_run systemctl enable --now virtqemud.socket virtnetworkd.socket virtstoraged.socket
    else
      svc_run systemctl enable --now libvirtd
    fi
  else
    pgrep -x virtlogd >/dev/null || svc_run virtlogd -d
    pgrep -x libvirtd >/dev/null || svc_run libvirtd -d
  fi
}

# sshd running, the user's key, its authorized_keys entry and the pinned host key.
pf_fix_ssh_localhost() {
  local user key kh port unit=sshd
  user=$(svc_ssh_user)
  port=$(svc_ssh_port)
  kh=$(svc_ssh_known_hosts)
  key=$(svc_ssh_key_path "$user") || pf_cannot "SSH user $user does not exist (create it first)" || return 1
  svc_have ssh || pf_install_for ssh || return 1
  if [ ! -x /usr/sbin/sshd ]; then pf_install_for sshd || return 1; fi
  # Something listening on the port, not any sshd process: tests run sshd on other ports.
  if ! pf_port_listening "$port"; then
    if svc_systemd_running; then
      [ "$(svc_os_family)" = debian ] && unit=ssh
      svc_run systemctl enable --now "$unit"
    else
      svc_run ssh-keygen -A
      svc_run install -d -m 755 /run/sshd
      svc_run /usr/sbin/sshd -p "$port"
    fi
  fi
  svc_ssh_ensure_key "$user" "$key"
  svc_ssh_authorize "$user" "$key"
  svc_ssh_pin_host_key "$kh" "$port"
}

# What to do about a check that did not pass: what --fix does, or what the operator must do.
# Printed on one line; every check id of PF_CHECKS has one.
pf_fix_hint() {
  local name=$1 user kh key
  case "$name" in
    os) printf 'use RHEL 9, CentOS Stream 9 or 10, or Rocky Linux 9 (Debian 12 works for development); not repairable by --fix' ;;
    memory) printf 'give the host at least 8 GB of RAM (16 GB recommended); not repairable by --fix' ;;
    disk) printf 'free space on %s or set SVC_DATA_DIR to a filesystem with 50 GB free (100 GB recommended); not repairable by --fix' "${SVC_DATA_DIR:-/var/lib}" ;;
    cpu-cores) printf 'give the host 4 or more CPU cores; not repairable by --fix' ;;
    cpu-virtualization) printf 'enable VT-x/AMD-V in the firmware (or nested virtualization for a VM host); not repairable by --fix' ;;
    kvm-device) printf -- '--fix loads kvm_intel or kvm_amd when /dev/kvm is missing, then sets its group to kvm and mode 660' ;;
    libvirt) printf -- '--fix installs %s when missing and starts libvirtd (systemctl enable --now, or libvirtd -d without systemd)' "$(svc_pkg_for virsh) $(svc_pkg_for libvirtd)" ;;
    cmd-ssh) printf -- '--fix installs %s' "$(svc_pkg_for ssh)" ;;
    cmd-ansible-playbook) printf -- '--fix installs %s' "$(svc_pkg_for ansible-playbook)" ;;
    cmd-virsh) printf -- '--fix installs %s' "$(svc_pkg_for virsh)" ;;
    vm-cli) printf 'install the host layer (scripts/development/deploy-svc.sh puts svc-vm in /usr/local/bin) or set SVC_VM_CLI; not repairable by --fix' ;;
    compose) printf -- '--fix installs %s' "$(svc_pkg_for compose)" ;;
    container-engine)
      if svc_have docker; then
        printf -- '--fix starts the docker engine (systemctl enable --now docker); without systemd start dockerd by hand'
      elif [ "$(svc_os_family)" = rhel ]; then
        printf -- '--fix installs podman'
      else
        printf 'install a container engine (Docker Engine, or podman) by hand; not repairable by --fix here'
      fi
      ;;
    port-assistant) printf 'stop what listens on port %s, or set SVC_ASSISTANT_PUBLISHED_PORT; not repairable by --fix' "${SVC_ASSISTANT_PUBLISHED_PORT:-8080}" ;;
    port-web-ui) printf 'stop what listens on port %s, or set SVC_WEB_UI_PUBLISHED_PORT; not repairable by --fix' "${SVC_WEB_UI_PUBLISHED_PORT:-8888}" ;;
    ssh-localhost)
      user=$(svc_ssh_user)
      kh=$(svc_ssh_known_hosts)
      key=$(svc_ssh_key_path "$user" 2>/dev/null) || key="(no home directory for $user)"
      printf -- '--fix starts sshd when it is not running, creates the key %s when it is missing, adds it to authorized_keys of %s and pins the host key in %s' "$key" "$user" "$kh"
      ;;
    dns) printf 'make the names resolvable (/etc/resolv.conf, /etc/hosts) or set SVC_PREFLIGHT_DNS_NAMES; without a registry, install debootstrap (offline base images: scripts/build-offline-images.sh); not repairable by --fix' ;;
    *) printf 'see scripts/preflight-check.sh --help' ;;
  esac
}
