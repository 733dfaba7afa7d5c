#!/usr/bin/env bash
# Build the tiny bootable Debian image the VM tests use, from Debian packages.
#
# Output (default /var/cache/svc/test-image/debian-minbase):
#   disk.qcow2   ext4 root filesystem (whole disk, no partition table: root=/dev/vda)
#   vmlinuz      the host's Debian kernel, booted directly by qemu
#   initrd.img   a small initramfs with busybox and the virtio modules (make-initramfs.sh)
#   image.json   how svc-vm boots it (kernel command line, key injection method)
#   recipe.sha256  stamp: the build is skipped while this matches the recipe
# and a symlink <images-dir>/<name> -> output, so `svc-vm create vm X -i <name>` finds it.
#
# The guest reads `svc_ssh_key=<base64 of authorized_keys>` and `svc_hostname=` from the
# kernel command line on every boot, generates its SSH host keys on first boot and gets an
# address by DHCP (systemd-networkd) from qemu's user-mode network.
set -euo pipefail

OUT=/var/cache/svc/test-image/debian-minbase
# The images directory the VM CLI reads (SVC_VM_IMAGES_DIR; default as in packages/config).
IMAGES_DIR=${SVC_VM_IMAGES_DIR:-/var/lib/svc/images}
NAME=debian-test
SUITE=bookworm
MIRROR=http://deb.debian.org/debian
KVER=""
FORCE=0
PACKAGES=systemd-sysv,udev,kmod,dbus,openssh-server,python3,sudo,iproute2,procps
EXTRA_PACKAGES=""
# Services of the extra packages that stay off until a role configures and enables them.
DISABLE_UNITS=""
SIZE=2G
DESCRIPTION=""

usage() {
  cat <<EOF
Usage: $0 [--out DIR] [--images-dir DIR] [--name NAME] [--kernel VERSION] [--mirror URL]
          [--extra-packages LIST] [--disable-units LIST] [--size SIZE] [--description TEXT] [--force]

Builds (or reuses, when up to date) the svc test VM image and registers it as NAME in IMAGES_DIR.
  --out DIR         output directory (default $OUT)
  --images-dir DIR  images directory to register the image in (default $IMAGES_DIR; "" to skip)
  --name NAME       image name (default $NAME)
  --kernel VERSION  kernel release from /boot (default: the newest with modules)
  --mirror URL      Debian mirror (default $MIRROR)
  --extra-packages LIST  comma-separated packages baked in besides the base set (Recommends are
                    not followed: list them)
  --disable-units LIST   comma-separated systemd units disabled and masked in the image (the
                    product roles unmask and enable what they configure)
  --size SIZE       root filesystem size (default $SIZE)
  --description TEXT     the image's description in image.json
  --force           rebuild even when up to date
EOF
}

while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT="$2"; shift 2 ;;
    --images-dir) IMAGES_DIR="$2"; shift 2 ;;
    --name) NAME="$2"; shift 2 ;;
    --kernel) KVER="$2"; shift 2 ;;
    --mirror) MIRROR="$2"; shift 2 ;;
    --extra-packages) EXTRA_PACKAGES="$2"; shift 2 ;;
    --disable-units) DISABLE_UNITS="$2"; shift 2 ;;
    --size) SIZE="$2"; shift 2 ;;
    --description) DESCRIPTION="$2"; shift 2 ;;
    --force) FORCE=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option: $1" >&2; usage >&2; exit 2 ;;
  esac
done

log() { printf '[build-test-image] %s\n' "$*" >&2; }
die() { printf '[build-test-image] error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap and file ownership in the image need it)"
for tool in debootstrap mkfs.ext4 qemu-img sha256sum cpio; do
  command -v "$tool" >/dev/null || die "$tool not found (apt-get install debootstrap e2fsprogs qemu-utils coreutils cpio)"
done
[ -x /bin/busybox ] || die "/bin/busybox not found, which the initramfs is made of (apt-get install busybox-static)"
[[ "$NAME" =~ ^[a-z][a-z0-9._-]{0,62}$ ]] || die "invalid image name: $NAME"
[[ "$EXTRA_PACKAGES" =~ ^[a-z0-9.+,-]*$ ]] || die "invalid --extra-packages: $EXTRA_PACKAGES"
[[ "$DISABLE_UNITS" =~ ^[A-Za-z0-9@._,-]*$ ]] || die "invalid --disable-units: $DISABLE_UNITS"
[[ "$SIZE" =~ ^[0-9]+[MG]$ ]] || die "invalid --size: $SIZE (e.g. 4G)"
[ -n "$EXTRA_PACKAGES" ] && PACKAGES="$PACKAGES,$EXTRA_PACKAGES"
[ -n "$DESCRIPTION" ] || DESCRIPTION="Debian $SUITE minbase with openssh-server, python3, sudo (svc test image)"

if [ -z "$KVER" ]; then
  for v in /boot/vmlinuz-*; do
    k="${v#/boot/vmlinuz-}"
    [ -d "/lib/modules/$k" ] || continue
    # Keep the newest release (version sort).
    if [ -z "$KVER" ] || [ "$(printf '%s\n%s\n' "$KVER" "$k" | sort -V | tail -n1)" = "$k" ]; then KVER="$k"; fi
  done
fi
[ -n "$KVER" ] || die "no kernel in /boot with /lib/modules (apt-get install linux-image-cloud-amd64)"
if [ ! -f "/boot/vmlinuz-$KVER" ] || [ ! -d "/lib/modules/$KVER" ]; then
  die "kernel $KVER needs /boot/vmlinuz-$KVER and /lib/modules/$KVER"
fi

INITRAMFS="$(dirname "$0")/make-initramfs.sh"
# The recipe: this script, the initramfs's, the suite, the package list and the kernel. Same recipe, same image.
RECIPE=$( { sha256sum "$0" "$INITRAMFS" | cut -d' ' -f1; echo "$SUITE $PACKAGES $DISABLE_UNITS $SIZE $KVER $DESCRIPTION"; sha256sum "/boot/vmlinuz-$KVER" | cut -d' ' -f1; } | sha256sum | cut -d' ' -f1)

register() {
  [ -n "$IMAGES_DIR" ] || return 0
  mkdir -p "$IMAGES_DIR"
  chmod 755 "$IMAGES_DIR"
  ln -sfn "$OUT" "$IMAGES_DIR/$NAME"
  log "registered $IMAGES_DIR/$NAME -> $OUT"
}

if [ "$FORCE" -eq 0 ] && [ -f "$OUT/recipe.sha256" ] && [ "$(cat "$OUT/recipe.sha256")" = "$RECIPE" ] \
  && [ -f "$OUT/disk.qcow2" ] && [ -f "$OUT/vmlinuz" ] && [ -f "$OUT/initrd.img" ] && [ -f "$OUT/image.json" ]; then
  log "up to date: $OUT"
  register
  exit 0
fi

PARENT=$(dirname "$OUT")
mkdir -p "$PARENT"
chmod 755 "$PARENT"
WORK=$(mktemp -d "$PARENT/.build.XXXXXX")
cleanup() {
  # Never leave a half-built tree behind; nothing is mounted inside $WORK.
  rm -rf "$WORK"
}
trap cleanup EXIT

ROOT="$WORK/rootfs"
START=$(date +%s)
log "debootstrap $SUITE (minbase) into $ROOT"
debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$ROOT" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 \
  || { tail -n 30 "$WORK/debootstrap.log" >&2; die "debootstrap failed"; }

log "configuring the root filesystem"
echo "$NAME" >"$ROOT/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n::1\tlocalhost ip6-localhost ip6-loopback\n' "$NAME" >"$ROOT/etc/hosts"
printf '/dev/vda\t/\text4\tdefaults,noatime\t0\t1\n' >"$ROOT/etc/fstab"

# Each VM gets its own host keys and machine id on first boot, not the ones made at build time.
rm -f "$ROOT"/etc/ssh/ssh_host_*
: >"$ROOT/etc/machine-id"
rm -f "$ROOT/var/lib/dbus/machine-id"

mkdir -p "$ROOT/etc/systemd/network"
cat >"$ROOT/etc/systemd/network/80-dhcp.network" <<'EOF'
[Match]
Name=en* eth*

[Network]
DHCP=ipv4
LinkLocalAddressing=no
IPv6AcceptRA=no
EOF

cat >"$ROOT/usr/local/sbin/svc-firstboot" <<'EOF'
#!/bin/sh
# Runs before sshd on every boot: host keys, injected authorized key, hostname.
set -eu
# ed25519 only: an RSA host key takes tens of seconds to generate under TCG.
[ -f /etc/ssh/ssh_host_ed25519_key ] || ssh-keygen -q -t ed25519 -N '' -f /etc/ssh/ssh_host_ed25519_key
for arg in $(cat /proc/cmdline); do
  case "$arg" in
    svc_ssh_key=*)
      install -d -m 700 /root/.ssh
      printf '%s' "${arg#svc_ssh_key=}" | base64 -d >/root/.ssh/authorized_keys.new
      chmod 600 /root/.ssh/authorized_keys.new
      mv /root/.ssh/authorized_keys.new /root/.ssh/authorized_keys
      ;;
    svc_hostname=*)
      name="${arg#svc_hostname=}"
      if [ "$(cat /etc/hostname)" != "$name" ]; then
        echo "$name" >/etc/hostname
        sed -i "s/^127.0.1.1.*/127.0.1.1\t$name/" /etc/hosts
      fi
      hostname "$name"
      ;;
  esac
done
EOF
chmod 755 "$ROOT/usr/local/sbin/svc-firstboot"

cat >"$ROOT/etc/systemd/system/svc-firstboot.service" <<'EOF'
[Unit]
Description=svc test image: host keys, injected SSH key, hostname
DefaultDependencies=no
# The initramfs mounts the root read-write (rw on the command line) and systemd-remount-fs is
# masked: this runs as soon as the journal can take its output, beside the rest of early boot.
After=systemd-journald.socket systemd-remount-fs.service
Before=ssh.service network-pre.target
Wants=network-pre.target

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/svc-firstboot
RemainAfterExit=yes

[Install]
WantedBy=multi-user.target
EOF

printf 'HostKey /etc/ssh/ssh_host_ed25519_key\nUseDNS no\n' >"$ROOT/etc/ssh/sshd_config.d/svc.conf"

mkdir -p "$ROOT/etc/systemd/journald.conf.d"
printf '[Journal]\nStorage=volatile\n' >"$ROOT/etc/systemd/journald.conf.d/volatile.conf"

chroot "$ROOT" systemctl enable svc-firstboot.service systemd-networkd.service ssh.service >/dev/null 2>&1
# Nothing that prompts on the console or reaches for the network on its own.
# logind is not needed for SSH sessions here (no libpam-systemd) and costs seconds under TCG.
chroot "$ROOT" systemctl mask systemd-firstboot.service systemd-logind.service apt-daily.timer apt-daily-upgrade.timer \
  e2scrub_all.timer e2scrub_reap.service fstrim.timer >/dev/null 2>&1
# Early boot on the path to sshd, each seconds under TCG and of no use in these VMs: the root is
# mounted read-write with fstab's options by the initramfs (remount-fs), the image's system users
# were made when its packages were installed (sysusers; a package installed later makes its own),
# and no LVM, EFI, binfmt or kernel debugging here.
chroot "$ROOT" systemctl mask systemd-remount-fs.service systemd-sysusers.service modprobe@dm_mod.service \
  modprobe@efi_pstore.service systemd-binfmt.service proc-sys-fs-binfmt_misc.automount \
  sys-kernel-debug.mount sys-kernel-tracing.mount >/dev/null 2>&1

# Product services stay off until their role configures them (a fresh samba or registry would
# otherwise start unconfigured on every VM made from this image).
if [ -n "$DISABLE_UNITS" ]; then
  IFS=, read -r -a units <<<"$DISABLE_UNITS"
  chroot "$ROOT" systemctl disable "${units[@]}" >/dev/null 2>&1 || true
  chroot "$ROOT" systemctl mask "${units[@]}" >/dev/null 2>&1
fi

# Modules for the host kernel (the initramfs only carries what mounting root needs).
mkdir -p "$ROOT/usr/lib/modules"
cp -a "/lib/modules/$KVER" "$ROOT/usr/lib/modules/"
chroot "$ROOT" depmod "$KVER"

chroot "$ROOT" apt-get clean
rm -rf "$ROOT"/var/lib/apt/lists/* "$ROOT"/var/cache/apt/*.bin "$ROOT"/var/log/*.log "$ROOT"/tmp/*

log "making the ext4 disk"
mkfs.ext4 -q -F -L svc-root -d "$ROOT" "$WORK/disk.raw" "$SIZE" >/dev/null
mkdir -p "$WORK/out"
qemu-img convert -f raw -O qcow2 "$WORK/disk.raw" "$WORK/out/disk.qcow2"
rm -f "$WORK/disk.raw"
cp "/boot/vmlinuz-$KVER" "$WORK/out/vmlinuz"
bash "$INITRAMFS" "$KVER" "$WORK/out/initrd.img"
cat >"$WORK/out/image.json" <<EOF
{
  "name": "$NAME",
  "description": "$DESCRIPTION",
  "boot": "kernel",
  "cmdline": "root=/dev/vda rw rootflags=noatime console=ttyS0 quiet",
  "key_injection": "cmdline",
  "ssh_user": "root",
  "os": "debian12",
  "kernel": "$KVER"
}
EOF
echo "$RECIPE" >"$WORK/out/recipe.sha256"
chmod 755 "$WORK/out"
chmod 644 "$WORK/out"/*

# Swap in atomically enough: a reader sees the old image or the new one.
rm -rf "$OUT.old"
[ -d "$OUT" ] && mv "$OUT" "$OUT.old"
mv "$WORK/out" "$OUT"
rm -rf "$OUT.old"
register
log "built $OUT in $(( $(date +%s) - START )) s"
