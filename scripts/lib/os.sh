# shellcheck shell=bash
# Host OS facts and package/service management (dnf or apt-get; systemd or plain daemons).
# Needs common.sh. SVC_OS_RELEASE_FILE overrides /etc/os-release (tests).

SVC_OS_RELEASE_FILE=${SVC_OS_RELEASE_FILE:-/etc/os-release}

# One field of os-release (parsed, not sourced), quotes removed.
svc_os_field() {
  local key=$1 line v
  [ -r "$SVC_OS_RELEASE_FILE" ] || return 0
  while IFS= read -r line || [ -n "$line" ]; do
    if [ "${line%%=*}" = "$key" ]; then
      v=${line#*=}
      v=${v#\"}
      v=${v%\"}
      v=${v#\'}
      v=${v%\'}
      printf '%s' "$v"
      return 0
    fi
  done <"$SVC_OS_RELEASE_FILE"
}

svc_os_id() { svc_os_field ID; }
svc_os_major() { local v; v=$(svc_os_field VERSION_ID); printf '%s' "${v%%.*}"; }
svc_os_name() { svc_os_field PRETTY_NAME; }

# rhel (dnf), debian (apt-get) or unknown.
svc_os_family() {
  local id like
  id=$(svc_os_id)
  like=$(svc_os_field ID_LIKE)
  case " $id $like " in
    *" rhel "* | *" centos "* | *" fedora "* | *" rocky "* | *" almalinux "*) echo rhel ;;
    *" debian "* | *" ubuntu "*) echo debian ;;
    *) echo unknown ;;
  esac
}

# Officially supported: RHEL 9, CentOS Stream 9/10, Rocky 9. Prints official|tolerated|unsupported.
svc_os_support() {
  local id major
  id=$(svc_os_id)
  major=$(svc_os_major)
  case "$id:$major" in
    rhel:9 | rocky:9 | centos:9 | centos:10) echo official ;;
    debian:12 | debian:13) echo tolerated ;;
    *) echo unsupported ;;
  esac
}

# OS plugin name for this host (svc-plugins' names): rhel9, rhel10, centos-stream9, centos-stream10,
# rocky9, debian12.
svc_os_plugin() {
  local name
  name=$(svc_os_plugin_name "$(svc_os_id)$(svc_os_major)")
  svc_os_plugins | grep -qx "$name" || return 1
  printf '%s' "$name"
}

svc_os_plugins() { printf '%s\n' rhel9 rhel10 centos-stream9 centos-stream10 rocky9 debian12; }

# The current name of a plugin given by an older name (centos9 and centos10 were the first names).
svc_os_plugin_name() {
  case "$1" in
    centos9 | centos10) printf 'centos-stream%s' "${1#centos}" ;;
    *) printf '%s' "$1" ;;
  esac
}

# Distribution package names for a logical tool.
svc_pkg_for() {
  local tool=$1 family
  family=$(svc_os_family)
  case "$family:$tool" in
    rhel:ssh) echo openssh-clients ;;
    *:ssh) echo openssh-client ;;
    *:sshd) echo openssh-server ;;
    *:ansible-playbook) echo ansible-core ;;
    rhel:virsh) echo libvirt-client ;;
    *:virsh) echo libvirt-clients ;;
    rhel:libvirtd) echo "libvirt-daemon-kvm qemu-kvm" ;;
    *:libvirtd) echo "libvirt-daemon-system qemu-system-x86" ;;
    rhel:compose) echo "podman podman-compose" ;;
    *:compose) echo docker-compose ;;
    rhel:postgres) echo "postgresql-server postgresql" ;;
    *:postgres) echo "postgresql postgresql-client" ;;
    rhel:redis) echo redis ;;
    *:redis) echo "redis-server redis-tools" ;;
    *:curl) echo curl ;;
    *:nginx) echo nginx ;;
    *) echo "$tool" ;;
  esac
}

# Install packages with the host's package manager (word-split lists from svc_pkg_for are intended).
svc_pkg_install() {
  [ "$#" -gt 0 ] || return 0
  case "$(svc_os_family)" in
    rhel) svc_run dnf install -y "$@" ;;
    debian)
      svc_run env DEBIAN_FRONTEND=noninteractive apt-get update -qq
      svc_run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
      ;;
    *) svc_warn "no known package manager for $(svc_os_name): install $* by hand"; return 1 ;;
  esac
}

svc_systemd_running() { [ -d /run/systemd/system ]; }

# Start a daemon: systemd when it runs the host, else the daemon binary itself in the background.
svc_start_daemon() {
  local unit=$1
  shift
  if svc_systemd_running; then
    svc_run systemctl enable --now "$unit"
  else
    svc_run "$@"
  fi
}
