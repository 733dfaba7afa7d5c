#!/usr/bin/env bash
# Provision a Samba AD domain on the controller, natively, in a chroot of the guest's own image, and
# pack the result for the guest: under TCG emulation `samba-tool domain provision` takes a minute
# or more, natively a few seconds. Same image, same Samba: the domain is what the guest would make.
#
# Usage: svc-samba-provision-native.sh IMAGE_DISK RESOLVER -- SAMBA_TOOL_PROVISION_ARGS...
#   IMAGE_DISK  the image's disk.qcow2 (ext4 root filesystem, as build-test-image.sh makes it)
#   RESOLVER    the guest's first nameserver (Samba's default forwarder), or empty
# Prints the path of a new file (0600, the caller removes it): etc/samba and var/lib/samba with
# owners, modes, ACLs and xattrs (the sysvol's NT ACLs), var/lib/samba/private/sam.ldb last (its
# presence means the unpack finished).
# Exit 3: this controller cannot do it (not root, a tool or the image missing): provision in the guest.
# The extracted image is kept under SVC_SAMBA_ROOTFS_CACHE (default /var/cache/svc/samba-rootfs),
# keyed by the image file; every run works in a private mount namespace on copies of the Samba
# directories, so the cached tree is never written. Nothing of the domain stays on the controller.
set -euo pipefail

unavailable() {
  echo "native provisioning unavailable: $*" >&2
  exit 3
}
if [ "$#" -lt 3 ] || [ "$3" != "--" ]; then
  echo "usage: $0 IMAGE_DISK RESOLVER -- PROVISION_ARGS..." >&2
  exit 2
fi
disk=$1 resolver=$2
shift 3
[ "$(id -u)" -eq 0 ] || unavailable "not root on the controller"
for tool in qemu-img debugfs unshare chroot tar flock; do
  command -v "$tool" >/dev/null || unavailable "$tool not found"
done
[ -f "$disk" ] || unavailable "no image disk at $disk"
[[ -z "$resolver" || "$resolver" =~ ^[0-9a-fA-F.:]+$ ]] || {
  echo "invalid resolver: $resolver" >&2
  exit 2
}

cache=${SVC_SAMBA_ROOTFS_CACHE:-/var/cache/svc/samba-rootfs}
mkdir -p "$cache"
key=$(stat -L -c '%d-%i-%s-%Y' "$disk" | sha256sum | cut -c1-16)
root=$cache/$key
exec 9>"$cache/.lock"
flock 9
if [ ! -x "$root/usr/bin/samba-tool" ]; then
  # Another image replaced this one: its tree goes.
  find "$cache" -mindepth 1 -maxdepth 1 ! -name .lock -exec rm -rf {} +
  tmp=$(mktemp -d "$cache/.new.XXXXXX")
  qemu-img convert -f qcow2 -O raw "$disk" "$tmp/disk.raw"
  mkdir "$tmp/root"
  debugfs -R "rdump / $tmp/root" "$tmp/disk.raw" >/dev/null 2>&1
  rm -f "$tmp/disk.raw"
  [ -x "$tmp/root/usr/bin/samba-tool" ] || {
    rm -rf "$tmp"
    unavailable "the image has no samba-tool"
  }
  mv "$tmp/root" "$root"
  rmdir "$tmp"
fi
flock -u 9

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tree/etc" "$work/tree/var/lib" "$work/scratch"
cp -a "$root/etc/samba" "$work/tree/etc/samba"
rm -f "$work/tree/etc/samba/smb.conf"
cp -a "$root/var/lib/samba" "$work/tree/var/lib/samba"
if [ -n "$resolver" ]; then printf 'nameserver %s\n' "$resolver" >"$work/resolv.conf"; else : >"$work/resolv.conf"; fi

# The provision sees the image's tree with the Samba directories, resolv.conf and the scratch
# places swapped for this run's own (the mounts end with the namespace).
# shellcheck disable=SC2016 # expanded by the inner shell
unshare --mount --propagation private -- sh -euc '
  root=$1 work=$2
  shift 2
  mount --bind "$work/tree/etc/samba" "$root/etc/samba"
  mount --bind "$work/tree/var/lib/samba" "$root/var/lib/samba"
  mount --bind "$work/resolv.conf" "$root/etc/resolv.conf"
  for d in tmp run var/tmp var/cache/samba var/log/samba; do
    [ -d "$root/$d" ] && mount -t tmpfs -o mode=0755 tmpfs "$root/$d"
  done
  mount -t proc proc "$root/proc"
  mount --bind /dev "$root/dev"
  exec chroot "$root" samba-tool domain provision "$@"
' sh "$root" "$work" "$@" >"$work/provision.log" 2>&1 || {
  # The output names the generated Administrator password: only the lines that do not.
  grep -iv pass "$work/provision.log" | tail -n 20 >&2
  exit 1
}

umask 077
tar -C "$work/tree" --numeric-owner --xattrs --xattrs-include='*' --acls --sparse \
  --exclude=./var/lib/samba/private/sam.ldb -cf "$work/out.tar" ./etc/samba ./var/lib/samba
tar -C "$work/tree" --numeric-owner --xattrs --xattrs-include='*' --acls -rf "$work/out.tar" ./var/lib/samba/private/sam.ldb
out=$(mktemp --suffix=.tgz)
gzip -1 -c "$work/out.tar" >"$out"
echo "$out"
