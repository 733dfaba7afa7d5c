#!/usr/bin/env bats
# shellcheck disable=SC2016 # scripts in single quotes, expanded by the shell that runs them
# The offline base images' safety nets, on real Docker engines: the packed root file system's
# root is drwxr-xr-x whatever made it, an image is checked (its shell and a command, as the user it
# runs as) before it is tagged, and builds take a lock. A private dockerd on the vfs storage driver
# (its own socket and data under the test's directory, no network) shows what overlay2 hides: an
# image whose / is drwx------ runs nothing as a non-root user.

load helpers

LIBS='. "$REPO/scripts/lib/common.sh"; . "$REPO/scripts/lib/offline-images.sh"'

# A tiny root file system: dash and its libraries, a passwd with root and user 1234 (svcuser).
tiny_rootfs() {
  local dir=$1 lib
  mkdir -p "$dir/bin" "$dir/etc" "$dir/tmp"
  cp /bin/dash "$dir/bin/sh"
  for lib in $(ldd /bin/dash | grep -oE '/[^ ]+'); do install -D "$lib" "$dir$lib"; done
  printf 'root:x:0:0::/:/bin/sh\nsvcuser:x:1234:1234::/tmp:/bin/sh\n' >"$dir/etc/passwd"
  printf 'root:x:0:\nsvcuser:x:1234:\n' >"$dir/etc/group"
}

engine() { docker info >/dev/null 2>&1 || { echo "the Docker engine does not answer" >&2; return 1; }; }

setup_file() {
  VFS=$(mktemp -d /tmp/svc-vfs-dockerd.XXXXXX)
  # A bridge of its own, with no address: containers here run with --network none. (With
  # --bridge none, dockerd deletes the host's docker0, which the main engine uses.)
  VFS_BRIDGE=svcvfs$$
  export VFS VFS_BRIDGE VFS_HOST=unix://$VFS/docker.sock
  ip link add "$VFS_BRIDGE" type bridge
  dockerd --storage-driver vfs --data-root "$VFS/data" --exec-root "$VFS/exec" -H "$VFS_HOST" --pidfile "$VFS/docker.pid" \
    --bridge "$VFS_BRIDGE" --iptables=false --ip-masq=false --ip-forward=false >"$VFS/dockerd.log" 2>&1 3>&- &
  for _ in $(seq 1 120); do DOCKER_HOST=$VFS_HOST docker info >/dev/null 2>&1 && return 0; sleep 0.5; done
  cat "$VFS/dockerd.log" >&2
  return 1
}

teardown_file() {
  if [ -s "$VFS/docker.pid" ]; then
    pid=$(cat "$VFS/docker.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  fi
  ip link del "$VFS_BRIDGE" 2>/dev/null || true
  rm -rf "$VFS"
}

setup() {
  TAG=svc-offline-test-$$-$BATS_TEST_NUMBER
}

teardown() {
  docker rmi -f "$TAG:a" "$TAG:b" >/dev/null 2>&1 || true
  DOCKER_HOST=$VFS_HOST docker rmi -f "$TAG:a" "$TAG:b" >/dev/null 2>&1 || true
}

@test "a root file system made in a mktemp -d directory (drwx------) is packed with a drwxr-xr-x root" {
  dir=$(mktemp -d "$BATS_TEST_TMPDIR/rootfs.XXXXXX")
  [ "$(stat -c %a "$dir")" = 700 ]
  touch "$dir/file"
  run bash -c "$LIBS"'; svc_offline_pack "$1" | tar -tvf - ./' _ "$dir"
  [ "$status" -eq 0 ]
  [[ "$output" == drwxr-xr-x* ]]
}

@test "on the vfs storage driver an image whose root is drwx------ fails its check as a non-root user; packed, it passes" {
  export DOCKER_HOST=$VFS_HOST
  [[ "$(docker info -f '{{ .Driver }}')" == vfs ]]
  dir=$(mktemp -d "$BATS_TEST_TMPDIR/rootfs.XXXXXX")
  tiny_rootfs "$dir"
  chmod 700 "$dir"
  tar -C "$dir" --numeric-owner -c . | docker import - "$TAG:a" >/dev/null
  run bash -c "$LIBS"'; svc_offline_verify "$1" 1234 sh -c true' _ "$TAG:a"
  [ "$status" -eq 1 ]
  [[ "$output" == *"$TAG:a does not run 'sh -c true' as 1234: "*"/bin/sh"*"permission denied"* ]]
  # As root it runs: only other users are shut out.
  run bash -c "$LIBS"'; svc_offline_verify "$1" 0 sh -c true' _ "$TAG:a"
  [ "$status" -eq 0 ]
  bash -c "$LIBS"'; svc_offline_pack "$1"' _ "$dir" | docker import - "$TAG:b" >/dev/null
  run bash -c "$LIBS"'; svc_offline_verify "$1" 1234 sh -c true' _ "$TAG:b"
  [ "$status" -eq 0 ]
}

@test "an image without a shell fails its check, with the engine's reason" {
  engine
  dir=$(mktemp -d "$BATS_TEST_TMPDIR/rootfs.XXXXXX")
  tiny_rootfs "$dir"
  rm "$dir/bin/sh"
  bash -c "$LIBS"'; svc_offline_pack "$1"' _ "$dir" | docker import - "$TAG:a" >/dev/null
  run bash -c "$LIBS"'; svc_offline_verify "$1" 0 true' _ "$TAG:a"
  [ "$status" -eq 1 ]
  [[ "$output" == *"does not run 'true' as 0: "*"/bin/sh"* ]]
}

@test "an image whose service binary is missing fails its check" {
  engine
  dir=$(mktemp -d "$BATS_TEST_TMPDIR/rootfs.XXXXXX")
  tiny_rootfs "$dir"
  bash -c "$LIBS"'; svc_offline_pack "$1"' _ "$dir" | docker import - "$TAG:a" >/dev/null
  run bash -c "$LIBS"'; svc_offline_verify "$1" $(svc_offline_check redis)' _ "$TAG:a"
  [ "$status" -eq 1 ]
  [[ "$output" == *"does not run 'redis-server --version' as redis"* ]]
}

@test "every offline image has a check: its user and its service binary" {
  for name in node postgres redis nginx; do
    run bash -c "$LIBS"'; svc_offline_check "$1"' _ "$name"
    [ "$status" -eq 0 ]
    read -r user cmd _ <<<"$output"
    [ -n "$user" ] && [ -n "$cmd" ]
  done
  run bash -c "$LIBS"'; svc_offline_check redis'
  [ "$output" = "redis redis-server --version" ]
}

@test "build-offline-images.sh waits while another build holds the lock, then goes on" {
  engine
  cache=$BATS_TEST_TMPDIR/cache
  mkdir -p "$cache"
  exec 8>"$cache/build.lock"
  flock 8
  # A mirror that does not answer (the discard port on loopback): once past the lock, debootstrap
  # fails at once and writes its log.
  env SVC_OFFLINE_CACHE="$cache" SVC_OFFLINE_PREFIX="$TAG" SVC_DEBIAN_MIRROR=http://127.0.0.1:9/debian \
    timeout 300 "$REPO/scripts/build-offline-images.sh" redis >"$BATS_TEST_TMPDIR/build.out" 2>&1 8>&- &
  build=$!
  for _ in $(seq 1 300); do grep -q 'waiting for it' "$BATS_TEST_TMPDIR/build.out" && break; sleep 0.1; done
  grep -q "another build of the offline images is running: waiting for it ($cache/build.lock)" "$BATS_TEST_TMPDIR/build.out"
  sleep 1
  [ ! -e "$cache/debootstrap.log" ]
  flock -u 8
  exec 8>&-
  rc=0
  wait "$build" || rc=$?
  cat "$BATS_TEST_TMPDIR/build.out"
  [ "$rc" -eq 1 ]
  [ -e "$cache/debootstrap.log" ]
  grep -q "debootstrap failed" "$BATS_TEST_TMPDIR/build.out"
}
