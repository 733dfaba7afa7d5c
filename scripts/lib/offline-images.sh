# shellcheck shell=bash
# Offline base images (scripts/build-offline-images.sh): debootstrap a bookworm root file system
# from this machine's Debian mirror, add the packages of one image in a chroot, `docker import` it,
# then apply compose/offline/IMAGE/Dockerfile (metadata and small files only: no network needed).
# Needs common.sh.

SVC_OFFLINE_PREFIX=${SVC_OFFLINE_PREFIX:-svc-offline}
SVC_OFFLINE_CACHE=${SVC_OFFLINE_CACHE:-/var/cache/svc-offline}
SVC_OFFLINE_SUITE=bookworm
SVC_OFFLINE_BASE_ARGS="--variant=minbase --include=ca-certificates"

svc_offline_tag() { printf '%s/%s:%s' "$SVC_OFFLINE_PREFIX" "$1" "$SVC_OFFLINE_SUITE"; }

# The variables that make compose/compose.yaml use the offline images.
svc_offline_env() {
  printf 'SVC_NODE_IMAGE=%s\n' "$(svc_offline_tag node)"
  printf 'SVC_POSTGRES_IMAGE=%s\n' "$(svc_offline_tag postgres)"
  printf 'SVC_REDIS_IMAGE=%s\n' "$(svc_offline_tag redis)"
  printf 'SVC_NGINX_IMAGE=%s\n' "$(svc_offline_tag nginx)"
}

# Can the offline base images serve this host? Prints how ("present: …" or "buildable from
# MIRROR"); fails when they are neither present nor buildable (no debootstrap or no mirror).
svc_offline_available() {
  local name missing=0 mirror
  if svc_have docker; then
    for name in node postgres redis nginx; do
      docker image inspect "$(svc_offline_tag "$name")" >/dev/null 2>&1 || missing=1
    done
    if [ "$missing" = 0 ]; then printf 'present: %s/{node,postgres,redis,nginx}:%s' "$SVC_OFFLINE_PREFIX" "$SVC_OFFLINE_SUITE"; return 0; fi
  fi
  svc_have debootstrap || return 1
  mirror=$(svc_debian_mirror) || return 1
  printf 'buildable from %s' "$mirror"
}

# The Debian mirror this machine installs bookworm from (SVC_DEBIAN_MIRROR wins), read from apt.
svc_debian_mirror() {
  local uri
  if [ -n "${SVC_DEBIAN_MIRROR:-}" ]; then printf '%s' "$SVC_DEBIAN_MIRROR"; return 0; fi
  # shellcheck disable=SC2016 # apt's format placeholders, not shell
  uri=$(apt-get indextargets --format '$(CODENAME) $(REPO_URI)' 2>/dev/null | awk -v s="$SVC_OFFLINE_SUITE" '$1 == s { print $2; exit }')
  if [ -z "$uri" ]; then
    # No package lists yet: the sources files (one-line and deb822 formats).
    uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
      awk -v s="$SVC_OFFLINE_SUITE" '$1 == "deb" { i = 2; if ($2 ~ /^\[/) while (i <= NF && $i !~ /\]$/) i++; if ($2 ~ /^\[/) i++; if ($(i + 1) == s) { print $i; exit } }')
  fi
  if [ -z "$uri" ]; then
    uri=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
      awk -v s="$SVC_OFFLINE_SUITE" '/^URIs:/ { u = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s) { print u; exit } } /^$/ { u = "" }')
  fi
  [ -n "$uri" ] || return 1
  printf '%s' "${uri%/}"
}

# Hash of what an image is made from: these scripts, its directory, the mirror, the Node version.
svc_offline_recipe() {
  local name=$1 mirror=$2 root
  root=$(svc_repo_root)
  {
    cat "$root/scripts/lib/offline-images.sh"
    find "$root/compose/offline/$name" -type f | LC_ALL=C sort | xargs cat
    printf '%s\n' "$mirror" "$name"
    [ "$name" != node ] || { node --version; cat /usr/local/share/ca-certificates/*.crt 2>/dev/null || true; }
  } | sha256sum | cut -c1-16
}

# A root file system directory as a tarball on stdout. Its root becomes drwxr-xr-x: a directory
# made by `mktemp -d` is drwx------, and an image whose / is that lets no user but root execute
# anything (the vfs storage driver shows it; overlay2 hides it).
svc_offline_pack() {
  chmod 755 "$1"
  tar -C "$1" --numeric-owner -c .
}

# How each image is checked before it is tagged: the user it runs as (postgres: the user its
# entrypoint switches to) and a command that needs its service binary.
svc_offline_check() {
  case "$1" in
    node) echo "node node --version" ;;
    postgres) echo "postgres postgres --version" ;;
    redis) echo "redis redis-server --version" ;;
    nginx) echo "root nginx -t -q" ;;
  esac
}

# Does IMAGE run a shell and CMD as USER? Says what failed (with the engine's words) otherwise.
svc_offline_verify() {
  local image=$1 user=$2 out
  shift 2
  # shellcheck disable=SC2016 # expanded by the image's shell
  if out=$(docker run --rm --network none --user "$user" --entrypoint /bin/sh "$image" -c '"$@"' sh "$@" 2>&1); then
    return 0
  fi
  svc_warn "$image does not run '$*' as $user: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"
  return 1
}

# A cached minbase root file system (tarball) for the mirror; prints its path.
svc_offline_base() {
  local mirror=$1 key tar dir
  key=$(printf '%s\n' "$mirror" "$SVC_OFFLINE_SUITE" "$SVC_OFFLINE_BASE_ARGS" | sha256sum | cut -c1-16)
  tar=$SVC_OFFLINE_CACHE/base-$key.tar
  if [ -s "$tar" ]; then printf '%s' "$tar"; return 0; fi
  install -d -m 755 "$SVC_OFFLINE_CACHE" "$SVC_OFFLINE_CACHE/debs"
  dir=$(mktemp -d /var/tmp/svc-offline-base.XXXXXX)
  svc_info "debootstrap $SVC_OFFLINE_SUITE (minbase) into $dir" >&2
  # shellcheck disable=SC2086 # the option list
  debootstrap $SVC_OFFLINE_BASE_ARGS --cache-dir="$SVC_OFFLINE_CACHE/debs" "$SVC_OFFLINE_SUITE" "$dir" "$mirror" >"$SVC_OFFLINE_CACHE/debootstrap.log" 2>&1 ||
    { rm -rf "$dir"; svc_die "debootstrap failed; see $SVC_OFFLINE_CACHE/debootstrap.log"; }
  svc_offline_pack "$dir" >"$tar.tmp" && mv "$tar.tmp" "$tar"
  rm -rf "$dir"
  find "$SVC_OFFLINE_CACHE" -maxdepth 1 -name 'base-*.tar' ! -name "base-$key.tar" -delete
  printf '%s' "$tar"
}

# Packages each image adds to the base.
svc_offline_packages() {
  case "$1" in
    node) echo "libstdc++6" ;;
    postgres) echo "postgresql-15 util-linux" ;;
    redis) echo "redis-server" ;;
    nginx) echo "nginx wget" ;;
  esac
}

# Install packages into a root file system without starting any service.
svc_offline_chroot_install() {
  local dir=$1
  shift
  printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"
  chmod 755 "$dir/usr/sbin/policy-rc.d"
  cp /etc/resolv.conf "$dir/etc/resolv.conf"
  chroot "$dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
    sh -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@"' sh "$@" >"$SVC_OFFLINE_CACHE/chroot.log" 2>&1 ||
    svc_die "installing $* failed; see $SVC_OFFLINE_CACHE/chroot.log"
  rm -f "$dir/usr/sbin/policy-rc.d"
  : >"$dir/etc/resolv.conf"
}

# This host's Node.js (must be 20) and npm, laid out like the official image.
svc_offline_add_node() {
  local dir=$1 node npm_dir
  node=$(readlink -f "$(command -v node)") || svc_die "Node.js is missing on this host"
  [[ "$(node --version)" == v20.* ]] || svc_die "this host's Node.js is $(node --version); the offline node image needs Node 20"
  npm_dir=$(cd "$(dirname "$(readlink -f "$(command -v npm)")")/.." && pwd)
  install -D -m 755 "$node" "$dir/usr/local/bin/node"
  mkdir -p "$dir/usr/local/lib/node_modules"
  cp -a "$npm_dir" "$dir/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$dir/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$dir/usr/local/bin/npx"
  # Certificate authorities this machine's operator added (a lab's registry mirror or proxy).
  if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$dir/usr/local/share/ca-certificates/"
    chroot "$dir" update-ca-certificates >/dev/null 2>&1 || svc_warn "update-ca-certificates failed in the node image"
  fi
  chroot "$dir" sh -c 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node'
}

# Build one image unless its recipe is unchanged (or FORCE=1).
svc_offline_build() {
  local name=$1 mirror=$2 force=$3 tag recipe have base dir raw
  tag=$(svc_offline_tag "$name")
  recipe=$(svc_offline_recipe "$name" "$mirror")
  have=$(docker image inspect -f '{{ index .Config.Labels "svc.offline-recipe" }}' "$tag" 2>/dev/null || true)
  # shellcheck disable=SC2046 # user and command words
  if [ "$force" != 1 ] && [ "$have" = "$recipe" ]; then
    if svc_offline_verify "$tag" $(svc_offline_check "$name"); then svc_info "$tag: up to date (recipe $recipe)"; return 0; fi
    svc_warn "$tag: the cached image fails its check: rebuilding it"
  fi
  svc_info "$tag: building (recipe $recipe)"
  base=$(svc_offline_base "$mirror")
  dir=$(mktemp -d /var/tmp/svc-offline-"$name".XXXXXX)
  # shellcheck disable=SC2064 # expand now: the directory of this build
  trap "rm -rf '$dir'" RETURN
  tar -C "$dir" -xf "$base"
  # shellcheck disable=SC2046 # a list of package names
  svc_offline_chroot_install "$dir" $(svc_offline_packages "$name")
  [ "$name" != node ] || svc_offline_add_node "$dir"
  rm -rf "$dir"/var/lib/apt/lists/* "$dir"/var/cache/apt/*.bin "$dir"/var/cache/apt/archives/*.deb \
    "$dir"/usr/share/man/* "$dir"/usr/share/info/* "$dir"/var/log/*.log "$dir"/tmp/*
  raw="$tag-rootfs" candidate="$tag-unverified"
  svc_offline_pack "$dir" | docker import - "$raw" >/dev/null
  docker build -q --build-arg "BASE=$raw" --label "svc.offline-recipe=$recipe" -t "$candidate" \
    "$(svc_repo_root)/compose/offline/$name" >/dev/null || svc_die "docker build of $tag failed"
  docker rmi "$raw" >/dev/null 2>&1 || true
  # Tagged only once it runs: a broken image is never kept under the name deployments use.
  # shellcheck disable=SC2046 # user and command words
  svc_offline_verify "$candidate" $(svc_offline_check "$name") ||
    { docker rmi "$candidate" >/dev/null 2>&1 || true; svc_die "$tag: the built image fails its check (see above); nothing was tagged"; }
  docker tag "$candidate" "$tag" && docker rmi "$candidate" >/dev/null
  svc_info "$tag: built ($(docker image inspect -f '{{ .Size }}' "$tag" | awk '{ printf "%d MB", $1 / 1000000 }'))"
}
