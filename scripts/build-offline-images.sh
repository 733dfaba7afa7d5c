#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Build the base images of the compose deployment from this machine's own Debian package source,
# for machines that cannot pull from a public image registry (air-gapped labs). Each image is a
# bookworm root file system made by debootstrap, imported with `docker import`:
#   node      Node.js 20 (this host's binary and npm), user node (1000)  ~ node:20-bookworm-slim
#   postgres  Debian's postgresql, initialised from POSTGRES_USER/_PASSWORD/_DB ~ postgres:16-bookworm
#   redis     Debian's redis-server and redis-cli                         ~ redis:7-bookworm
#   nginx     Debian's nginx and wget                                     ~ nginx:1.27-alpine
# An image is rebuilt only when its recipe (this script, the offline directory, the Node version,
# the mirror) changed: its label svc.offline-recipe holds the recipe's hash. Each image is checked
# before it is tagged (and a cached one before it is reused): its shell and its service binary
# run as the user the image runs as. Builds take a lock (flock on the cache's build.lock).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib/common.sh
. "$ROOT/scripts/lib/common.sh"
# shellcheck source=scripts/lib/offline-images.sh
. "$ROOT/scripts/lib/offline-images.sh"

usage() {
  cat <<'USAGE'
Usage: sudo scripts/build-offline-images.sh [--force] [--print-env] [IMAGE...]

Builds the offline base images (IMAGE: node, postgres, redis, nginx; default all) from the Debian
mirror in this machine's apt configuration (or SVC_DEBIAN_MIRROR), tagged
${SVC_OFFLINE_PREFIX:-svc-offline}/IMAGE:bookworm. Up-to-date images are kept.

Options:
  --force      rebuild even when the recipe is unchanged
  --print-env  print only the SVC_*_IMAGE=... lines that select the offline images
  -h, --help   show this help
Environment: SVC_DEBIAN_MIRROR, SVC_OFFLINE_PREFIX, SVC_OFFLINE_CACHE (default /var/cache/svc-offline)
USAGE
}

FORCE=0 PRINT_ENV=0 wanted=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    --force) FORCE=1 ;;
    --print-env) PRINT_ENV=1 ;;
    -h | --help) usage; exit 0 ;;
    node | postgres | redis | nginx) wanted+=("$1") ;;
    *) printf 'unknown option or image: %s\n\n' "$1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
[ "${#wanted[@]}" -gt 0 ] || wanted=(node postgres redis nginx)

if [ "$PRINT_ENV" = 1 ]; then svc_offline_env; exit 0; fi
svc_require_root build-offline-images.sh
svc_have debootstrap || svc_die "debootstrap is missing: apt-get install -y debootstrap"
svc_have docker || svc_die "docker is missing: apt-get install -y docker.io"
docker info >/dev/null 2>&1 || svc_die "the Docker engine does not answer (start dockerd)"

svc_have flock || svc_die "flock is missing: apt-get install -y util-linux"

# One build at a time: two deploys started together would otherwise share half-written files.
install -d -m 755 "$SVC_OFFLINE_CACHE"
exec 9>"$SVC_OFFLINE_CACHE/build.lock"
if ! flock -n 9; then
  svc_info "another build of the offline images is running: waiting for it ($SVC_OFFLINE_CACHE/build.lock)"
  flock 9
fi

MIRROR=$(svc_debian_mirror) || svc_die "no bookworm mirror in the apt configuration: set SVC_DEBIAN_MIRROR"
svc_log "offline images from $MIRROR (cache $SVC_OFFLINE_CACHE)"
for name in "${wanted[@]}"; do
  svc_offline_build "$name" "$MIRROR" "$FORCE"
done
svc_log "offline images ready; select them with:"
svc_offline_env | sed 's/^/    /'
