#!/usr/bin/env bash
# The test images' initramfs: busybox and the virtio modules that reach the root disk, nothing
# else. It loads them, mounts the root (root=, rootflags=, ro/rw from the kernel command line),
# moves /dev there and hands over to the root's init. Debian's own initramfs (14 MiB, udev) takes about 3 s
# under TCG before the root is mounted; this one takes tenths.
#
# Usage: make-initramfs.sh KERNEL_RELEASE OUT_FILE
#   KERNEL_RELEASE  a release in /lib/modules whose ext4 is built in (Debian's kernels)
#   OUT_FILE        the gzip-compressed newc cpio archive to write
set -euo pipefail

die() { printf '[make-initramfs] error: %s\n' "$*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: $0 KERNEL_RELEASE OUT_FILE"
KVER=$1
OUT=$2
BUSYBOX=/bin/busybox
for tool in modprobe cpio gzip; do
  command -v "$tool" >/dev/null || die "$tool not found (apt-get install kmod cpio gzip)"
done
if ! { [ -x "$BUSYBOX" ] && "$BUSYBOX" --list | grep -qx switch_root; }; then
  die "$BUSYBOX with switch_root not found (apt-get install busybox-static)"
fi
[ -d "/lib/modules/$KVER" ] || die "no /lib/modules/$KVER"
CONFIG="/boot/config-$KVER"
if [ -f "$CONFIG" ] && ! grep -qx 'CONFIG_EXT4_FS=y' "$CONFIG"; then
  die "kernel $KVER has ext4 as a module; this initramfs carries only the virtio modules"
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK"/{bin,dev,proc,root,modules}
cp "$BUSYBOX" "$WORK/bin/busybox"
for applet in sh cat mount umount insmod sleep switch_root poweroff; do
  ln -s busybox "$WORK/bin/$applet"
done

# Each module after what it needs, each once: the order modprobe would load them in.
: >"$WORK/modules.order"
while read -r verb path _; do
  [ "$verb" = insmod ] || continue
  base=$(basename "$path")
  grep -qx "$base" "$WORK/modules.order" && continue
  cp "$path" "$WORK/modules/$base"
  echo "$base" >>"$WORK/modules.order"
done < <(modprobe -a -S "$KVER" --show-depends virtio_pci virtio_blk)
grep -qx virtio_blk.ko "$WORK/modules.order" || die "modprobe found no virtio_blk.ko for $KVER"

cat >"$WORK/init" <<'EOF'
#!/bin/sh
# svc test image: load the virtio modules, mount the root, hand over to its init.
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
root=/dev/vda flags=ro rootflags= init=/sbin/init
for arg in $(cat /proc/cmdline); do
  case "$arg" in
    root=*) root=${arg#root=} ;;
    rootflags=*) rootflags=,${arg#rootflags=} ;;
    rw) flags=rw ;;
    ro) flags=ro ;;
    init=*) init=${arg#init=} ;;
  esac
done
for m in $(cat /modules.order); do insmod "/modules/$m" || echo "initramfs: insmod $m failed"; done
i=0
# Up to a minute for the disk (Debian's initramfs waits 30 s; a loaded TCG host is slow).
while [ ! -b "$root" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
if ! mount -t ext4 -o "$flags$rootflags" "$root" /root; then
  echo "initramfs: cannot mount the root $root; powering off"
  poweroff -f
fi
umount /proc
mount --move /dev /root/dev
exec switch_root /root "$init"
EOF
chmod 755 "$WORK/init"

(cd "$WORK" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -9 >"$OUT.new"
mv "$OUT.new" "$OUT"
