# shellcheck shell=bash
# Steps of scripts/development/prepare-host.sh. Each checks first, changes only what is missing and
# prints one line saying what it found or did. Needs common.sh and os.sh.

# Preflight checks that say nothing about the main job on a development host.
HP_PREFLIGHT_SKIP=os,memory,disk,cpu-cores,cpu-virtualization,vm-cli,compose,container-engine,port-assistant,port-web-ui,dns

# Export the host-facing settings exactly as the services resolve them (packages/config).
hp_load_settings() {
  local repo=$1 out key value
  out=$(node "$repo/packages/config/bin/svc-config" host) || svc_die "the configuration is invalid (see above)"
  while IFS='=' read -r key value; do
    case "$key" in
      SVC_[A-Z_]*) printf -v "$key" '%s' "$value"; export "${key?}" ;;
    esac
  done <<<"$out"
}

hp_missing_packages() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || printf '%s\n' "$p"
  done
}

# Packages the main job needs on a Debian host; other systems: the preflight repairs what it can.
hp_packages() {
  local with_image=$1 pkgs=(libvirt-daemon-system libvirt-clients qemu-system-x86 qemu-utils openssh-server openssh-client
    ansible-core ansible-mitogen genisoimage dnsmasq-base) missing
  # The test images: debootstrap, mkfs.ext4 -d, the host's kernel, and busybox with cpio for their initramfs.
  [ "$with_image" = 1 ] && pkgs+=(debootstrap e2fsprogs linux-image-cloud-amd64 busybox-static cpio)
  if [ "$(svc_os_family)" != debian ]; then
    svc_info "packages: $(svc_os_name) is not Debian; the preflight repairs below install what it knows"
    return 0
  fi
  mapfile -t missing < <(hp_missing_packages "${pkgs[@]}")
  if [ "${#missing[@]}" -eq 0 ]; then
    svc_info "packages: all present"
    return 0
  fi
  svc_info "packages: installing ${missing[*]}"
  svc_pkg_install "${missing[@]}" >/dev/null
}

# sshd, the key, authorized_keys, the pinned host key and libvirtd: the preflight's own repairs.
hp_preflight_fix() {
  local repo=$1 log rc=0
  log=$(mktemp)
  bash "$repo/scripts/preflight-check.sh" --fix --skip "$HP_PREFLIGHT_SKIP" >"$log" 2>&1 || rc=$?
  # Only what matters: repairs made, what failed, and the one-line summary.
  grep -E '^\s+\+ |authorized_keys: added|host key pinned|SHA256:|repaired:|not repaired:|^\s+fix: |^\[FAIL\]|^Summary:|^WARNING' "$log" | sed 's/^ *//; s/^/    /' || true
  rm -f "$log"
  if [ "$rc" -ne 0 ]; then svc_warn "some preflight checks still fail (above); VM workflows may not work until they pass"; fi
}

# KVM when the device works, else TCG: say which, carry on either way.
hp_kvm_note() {
  if [ -c /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then
    svc_info "virtualization: /dev/kvm is usable; VMs run accelerated"
  else
    svc_info "virtualization: no usable /dev/kvm here; VMs run under TCG (software emulation): slower, but they work"
  fi
}

# The images and disks directories exist, and qemu (its own user) can reach both: every directory
# above them must be world-traversable.
hp_directories() {
  local d p changed=""
  for d in "$SVC_VM_IMAGES_DIR" "$SVC_VM_DISKS_DIR"; do
    if [ ! -d "$d" ]; then
      install -d -m 755 "$d"
      changed+=" created $d;"
    fi
    p=$d
    while [ "$p" != / ] && [ -n "$p" ]; do
      if [ "$(( $(stat -c '%#a' "$p") & 8#005 ))" -ne 5 ]; then
        chmod o+rx "$p"
        changed+=" made $p readable by qemu;"
      fi
      p=$(dirname "$p")
    done
  done
  if [ -n "$changed" ]; then svc_info "directories:${changed%;}"; else svc_info "directories: $SVC_VM_IMAGES_DIR and $SVC_VM_DISKS_DIR ready"; fi
}

# The default image: present, or built when it is the test image, or a clear warning.
hp_default_image() {
  local repo=$1 img=$SVC_VM_DEFAULT_IMAGE out
  if [ "$img" = "${SVC_TEST_IMAGE_NAME:-debian-test}" ]; then
    if out=$(bash "$repo/scripts/development/build-test-image.sh" --images-dir "$SVC_VM_IMAGES_DIR" --name "$img" 2>&1); then
      svc_info "default image: $(printf '%s\n' "$out" | grep -E 'up to date|built ' | tail -n1 | sed 's/^\[build-test-image\] //') ($img in $SVC_VM_IMAGES_DIR)"
    else
      printf '%s\n' "$out" | tail -n 15 >&2
      svc_warn "the test image could not be built (above); VM creates from $img will fail"
    fi
  elif [ -e "$SVC_VM_IMAGES_DIR/$img" ] || [ -e "$SVC_VM_IMAGES_DIR/$img.qcow2" ]; then
    svc_info "default image: $img found in $SVC_VM_IMAGES_DIR"
  else
    svc_warn "default image $img is not in $SVC_VM_IMAGES_DIR: add it there, or set SVC_VM_DEFAULT_IMAGE=debian-test to use the test image"
  fi
}

# The products' Debian 12 image (debian12): built once (cached), as the products on Debian need it.
hp_product_image() {
  local repo=$1 out
  if out=$(bash "$repo/scripts/development/build-debian12-image.sh" --images-dir "$SVC_VM_IMAGES_DIR" 2>&1); then
    svc_info "products image: $(printf '%s\n' "$out" | grep -E 'up to date|built ' | tail -n1 | sed 's/^\[build-test-image\] //') (debian12 in $SVC_VM_IMAGES_DIR)"
  else
    printf '%s\n' "$out" | tail -n 15 >&2
    svc_warn "the debian12 image could not be built (above); the products on Debian 12 will not find it"
  fi
}

# A libvirt default network must be defined and active; 'user' networking needs nothing.
hp_network() {
  local net=$SVC_VM_DEFAULT_NETWORK uri=${SVC_LIBVIRT_URI:-qemu:///system}
  if [ "$net" = user ]; then
    svc_info "network: user-mode networking (SSH to each VM is forwarded to 127.0.0.1)"
    return 0
  fi
  if ! virsh -c "$uri" net-info "$net" >/dev/null 2>&1; then
    svc_warn "network: libvirt network $net is not defined; define it, or set SVC_VM_DEFAULT_NETWORK=user"
    return 0
  fi
  if virsh -c "$uri" net-info "$net" 2>/dev/null | grep -qE '^Active:\s+yes'; then
    svc_info "network: libvirt network $net is active"
  elif virsh -c "$uri" net-start "$net" >/dev/null 2>&1; then
    virsh -c "$uri" net-autostart "$net" >/dev/null 2>&1 || true
    svc_info "network: started libvirt network $net"
  else
    svc_warn "network: libvirt network $net does not start (virsh net-start $net says why); or set SVC_VM_DEFAULT_NETWORK=user"
  fi
}

# The commands set-up puts on PATH: svc-vm (the VM CLI, for the workers' SSH sessions and the
# operator), svc-hosts (the operator's host inventory) and the MCP tool servers (svc-mcp-workflow, svc-mcp-assistant), each a link into this
# checkout, in DIR (default /usr/local/bin). A command already on PATH is kept; a broken link is
# replaced.
hp_cli_links() {
  local repo=$1 dir=${2:-/usr/local/bin} rel name link target found
  for rel in packages/vm/bin/svc-vm packages/hosts/bin/svc-hosts services/mcp-workflow/bin/svc-mcp-workflow services/mcp-assistant/bin/svc-mcp-assistant; do
    name=${rel##*/} link=$dir/$name target=$repo/$rel
    if [ -L "$link" ] && [ ! -e "$link" ]; then
      ln -sfn "$target" "$link"
      svc_info "$name: replaced a broken link: $link -> $target"
    elif found=$(command -v "$name" 2>/dev/null); then
      svc_info "$name: $found$([ -L "$found" ] && printf ' -> %s' "$(readlink "$found")")"
    else
      ln -s "$target" "$link"
      svc_info "$name: linked $link -> $target"
    fi
  done
}
