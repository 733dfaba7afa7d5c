#!/usr/bin/env bash
# The holder of a test hypervisor host (see second-host.ts). Runs as root inside
# `unshare --mount --propagation private`: libvirt's directories are replaced by the host's own,
# so the virtlogd, libvirtd and sshd started here (and every SSH session, every qemu they start)
# see only this host's state; the network namespace stays the machine's (127.0.0.1 only).
#
# Usage: second-host.sh DIR CACHE_DIR
#   DIR        made by second-host.ts: root/{lib,cache,log,etc}, ssh/sshd_config
#   CACHE_DIR  a kept copy of /var/cache/libvirt (qemu capabilities), reused across runs
# Prints "ready" once libvirt answers and sshd runs, then reads commands on stdin, one a line:
#   sshd-stop   kill sshd and its sessions (the host is "down" for SSH)   -> "ok"
#   sshd-start  start sshd again on the same port with the same keys     -> "ok"
#   quit, or end of input (the test process died): destroy and undefine every domain of this
#   libvirtd, stop the daemons and exit.
set -euo pipefail
D=$1
CACHE=$2
SSHD="" LIBVIRTD="" VIRTLOGD=""

virsh_() { virsh --connect qemu:///system "$@"; }

start_sshd() {
  /usr/sbin/sshd -D -e -f "$D/ssh/sshd_config" 2>>"$D/sshd.log" &
  SSHD=$!
}

stop_sshd() {
  [ -n "$SSHD" ] || return 0
  # Its sessions first (children of the listener), so no open connection outlives "down".
  pkill -TERM -P "$SSHD" 2>/dev/null || true
  kill -TERM "$SSHD" 2>/dev/null || true
  wait "$SSHD" 2>/dev/null || true
  SSHD=""
}

teardown() {
  trap - EXIT INT TERM
  stop_sshd
  if [ -n "$LIBVIRTD" ]; then
    for n in $(virsh_ list --all --name 2>/dev/null); do
      virsh_ destroy "$n" >/dev/null 2>&1 || true
      virsh_ undefine --nvram "$n" >/dev/null 2>&1 || virsh_ undefine "$n" >/dev/null 2>&1 || true
    done
    kill -TERM "$LIBVIRTD" 2>/dev/null || true
    wait "$LIBVIRTD" 2>/dev/null || true
  fi
  if [ -n "$VIRTLOGD" ]; then
    kill -TERM "$VIRTLOGD" 2>/dev/null || true
    wait "$VIRTLOGD" 2>/dev/null || true
  fi
}
trap teardown EXIT
trap 'exit 143' INT TERM

# qemu runs as the user that owns the machine's /var/lib/libvirt/qemu (libvirt-qemu on Debian).
QEMU_OWNER=$(stat -c %u:%g /var/lib/libvirt/qemu)
mkdir -p "$D"/root/lib/{qemu,images,boot} "$D"/root/cache "$D"/root/log/qemu "$D"/root/etc
chown "$QEMU_OWNER" "$D/root/lib/qemu"
chmod 750 "$D/root/lib/qemu"
# The machine's libvirt configuration, without its domains, networks that start, storage pools
# that start, or secrets.
cp -a /etc/libvirt/. "$D/root/etc/"
rm -f "$D"/root/etc/qemu/*.xml "$D"/root/etc/qemu/autostart/* "$D"/root/etc/qemu/networks/autostart/* "$D"/root/etc/storage/autostart/*
rm -rf "$D"/root/etc/secrets/*
# qemu's capabilities, probed once (8 s under TCG) and kept: libvirt throws the cache away when the
# CPU it runs on reports another cpuid, and the two vCPUs here differ, so libvirtd is pinned to
# the first online CPU (qemu itself gets every CPU: libvirt sets each domain's affinity).
mkdir -p "$CACHE"
[ -d "$CACHE/qemu/capabilities" ] || cp -a /var/cache/libvirt/. "$CACHE/" 2>/dev/null || true
cp -a "$CACHE/." "$D/root/cache/"
CPU=$(cut -d, -f1 /sys/devices/system/cpu/online | cut -d- -f1)

mount -t tmpfs -o mode=755 svc-test-host /run/libvirt
mount --bind "$D/root/lib" /var/lib/libvirt
mount --bind "$D/root/cache" /var/cache/libvirt
mount --bind "$D/root/log" /var/log/libvirt
mount --bind "$D/root/etc" /etc/libvirt

virtlogd -p "$D/virtlogd.pid" 2>>"$D/virtlogd.log" &
VIRTLOGD=$!
taskset -c "$CPU" libvirtd -p "$D/libvirtd.pid" 2>>"$D/libvirtd.log" &
LIBVIRTD=$!
for _ in $(seq 600); do
  virsh_ version >/dev/null 2>&1 && break
  kill -0 "$LIBVIRTD" 2>/dev/null || { echo "libvirtd exited: $(tail -c 2000 "$D/libvirtd.log")" >&2; exit 1; }
  sleep 0.1
done
virsh_ version >/dev/null 2>&1 || { echo "libvirtd did not answer in 60 s" >&2; exit 1; }
# Keep what libvirtd probed for the next run (one file at a time, renamed into place).
mkdir -p "$CACHE/qemu/capabilities"
for f in "$D"/root/cache/qemu/capabilities/*.xml; do
  [ -e "$f" ] || continue
  cmp -s "$f" "$CACHE/qemu/capabilities/${f##*/}" && continue
  cp "$f" "$CACHE/qemu/capabilities/.${f##*/}.$$" && mv -f "$CACHE/qemu/capabilities/.${f##*/}.$$" "$CACHE/qemu/capabilities/${f##*/}"
done

mkdir -p /run/sshd
start_sshd
echo ready
while read -r cmd; do
  case "$cmd" in
    sshd-stop) stop_sshd; echo ok ;;
    sshd-start) stop_sshd; start_sshd; echo ok ;;
    quit) break ;;
    *) echo "unknown command: $cmd" >&2; echo ok ;;
  esac
done
