#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Prepare this machine for the main job: what a workflow needs to create a VM here and configure
# it with Ansible. Idempotent: every step checks first and says in one line what it found or did.
# Run by scripts/development/run-dev.sh; safe to run alone.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
LIB=$REPO/scripts/lib
# shellcheck source=../lib/common.sh
. "$LIB/common.sh"
# shellcheck source=../lib/os.sh
. "$LIB/os.sh"
# shellcheck source=../lib/host-prepare.sh
. "$LIB/host-prepare.sh"

usage() {
  cat <<'USAGE'
Usage: scripts/development/prepare-host.sh [--no-image] [-h]

Prepares this host for VM workflows, reading the settings the services use (svc-config host):
  - the packages for libvirt/qemu, SSH, Ansible and the test image (installed when missing);
  - sshd on SVC_SSH_HOST:SVC_SSH_PORT with key auth for SVC_SSH_USER: the key generated, added to
    authorized_keys, and this host's key pinned in the known_hosts the workers use
    (scripts/preflight-check.sh --fix does these repairs);
  - virtlogd and libvirtd started (no systemd needed); TCG when /dev/kvm is not usable;
  - the images and disks directories, readable by qemu;
  - the default image (SVC_VM_DEFAULT_IMAGE): the small Debian test image is built once
    (scripts/development/build-test-image.sh, cached) when it is the default, and the debian12
    image the products run on (scripts/development/build-debian12-image.sh, cached);
  - the default network (SVC_VM_DEFAULT_NETWORK) active when it is a libvirt network;
  - svc-vm, svc-mcp-workflow and svc-mcp-assistant on PATH (links into this checkout) when they
    are not installed.
Needs root for the repairs; without root it reports what is missing and what to run.

  --no-image      do not build the test image nor the debian12 products image
  --no-path-link  do not link svc-vm, svc-mcp-workflow, svc-mcp-assistant into /usr/local/bin
  -h, --help      this help
USAGE
}

BUILD_IMAGE=1 PATH_LINK=1
while [ "$#" -gt 0 ]; do
  case "$1" in
    --no-image) BUILD_IMAGE=0 ;;
    --no-path-link) PATH_LINK=0 ;;
    -h | --help) usage; exit 0 ;;
    *) printf 'unknown option: %s\n\n' "$1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done

START=$(date +%s)
hp_load_settings "$REPO"
svc_log "preparing this host for VM workflows (SSH $SVC_SSH_USER@$SVC_SSH_HOST:$SVC_SSH_PORT, images $SVC_VM_IMAGES_DIR, default image $SVC_VM_DEFAULT_IMAGE, network $SVC_VM_DEFAULT_NETWORK)"

if [ "$(id -u)" -ne 0 ] && ! sudo -n true 2>/dev/null; then
  svc_warn "not root and no passwordless sudo: only checking. To prepare the host run: sudo -E bash scripts/development/prepare-host.sh"
  bash "$REPO/scripts/preflight-check.sh" --skip "$HP_PREFLIGHT_SKIP" || true
  exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
  exec sudo -n -E bash "$0" "$@"
fi

hp_packages "$BUILD_IMAGE"
hp_preflight_fix "$REPO"
hp_kvm_note
hp_directories
if [ "$BUILD_IMAGE" = 1 ]; then
  hp_default_image "$REPO"
  hp_product_image "$REPO"
fi
hp_network
if [ "$PATH_LINK" = 1 ]; then hp_cli_links "$REPO"; fi
svc_log "host ready in $(($(date +%s) - START)) s"
