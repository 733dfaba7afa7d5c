#!/usr/bin/env bats
# The nginx reverse proxy: rendered configurations, `nginx -t`, and a real nginx on spare
# 127.0.0.1 ports in front of two small local HTTP servers standing in for the services.

load helpers

setup_file() {
  # nginx's worker processes (an unprivileged user when started as root) must reach the temp
  # dirs: a traversable directory of its own, not the test runner's private one.
  T=$(mktemp -d /tmp/svc-nginx-test.XXXXXX)
  export T
  chmod 755 "$T"
  mkdir -p "$T/tmp"
  mapfile -t ports < <(free_ports 4)
  export A_UP=${ports[0]} W_UP=${ports[1]} A_PORT=${ports[2]} W_PORT=${ports[3]}
  node "$FIXTURES/upstream.cjs" assistant "$A_UP" >"$T/assistant.log" 2>&1 3>&- &
  echo $! >"$T/assistant.pid"
  node "$FIXTURES/upstream.cjs" web-ui "$W_UP" >"$T/web-ui.log" 2>&1 3>&- &
  echo $! >"$T/web-ui.pid"
  "$REPO/nginx/render-conf.sh" --assistant-upstream "127.0.0.1:$A_UP" --web-ui-upstream "127.0.0.1:$W_UP" \
    --assistant-listen "127.0.0.1:$A_PORT" --web-ui-listen "127.0.0.1:$W_PORT" --prefix "$T" >"$T/nginx.conf"
  # In the foreground (daemon off) as a child of the test run; stopped in teardown_file.
  nginx -p "$T" -e "$T/error.log" -c "$T/nginx.conf" -g 'daemon off;' >"$T/nginx.out" 2>&1 3>&- &
  echo $! >"$T/nginx.pid.child"
  wait_port "$A_UP"
  wait_port "$W_UP"
  wait_port "$A_PORT"
  wait_port "$W_PORT"
}

teardown_file() {
  local f
  for f in "$T/nginx.pid.child" "$T/assistant.pid" "$T/web-ui.pid"; do
    if [ -f "$f" ]; then kill "$(cat "$f")" 2>/dev/null || true; fi
  done
  sleep 0.2
  rm -rf "$T"
}

@test "nginx/nginx.conf and nginx/nginx-host.conf are the rendered template" {
  diff <("$REPO/nginx/render-conf.sh" --preset compose) "$REPO/nginx/nginx.conf"
  diff <("$REPO/nginx/render-conf.sh" --preset host) "$REPO/nginx/nginx-host.conf"
  grep -q 'server 127.0.0.1:18080;' "$REPO/nginx/nginx-host.conf"
  grep -q 'server 127.0.0.1:18888;' "$REPO/nginx/nginx-host.conf"
}

@test "the renderer refuses values that would inject configuration" {
  run "$REPO/nginx/render-conf.sh" --assistant-upstream 'x:1; include /etc/passwd'
  [ "$status" -eq 2 ]
  run "$REPO/nginx/render-conf.sh" --prefix 'relative/dir'
  [ "$status" -eq 2 ]
  run "$REPO/nginx/render-conf.sh" --help
  [ "$status" -eq 0 ]
}

@test "nginx -t accepts the rendered configuration" {
  run nginx -t -p "$T" -e "$T/error.log" -c "$T/nginx.conf"
  [ "$status" -eq 0 ]
  [[ "$output" == *"test is successful"* ]]
}

@test "nginx -t accepts the host variant (paths moved to a temp prefix)" {
  "$REPO/nginx/render-conf.sh" --preset host --prefix "$T" >"$T/host.conf"
  grep -q 'server 127.0.0.1:18080;' "$T/host.conf"
  run nginx -t -p "$T" -e "$T/error.log" -c "$T/host.conf"
  [ "$status" -eq 0 ]
}

@test "the assistant port proxies to the assistant upstream with forwarding headers" {
  run curl -sS --max-time 5 "http://127.0.0.1:$A_PORT/health"
  [ "$status" -eq 0 ]
  [[ "$output" == *'"upstream":"assistant"'* ]]
  [[ "$output" == *'"path":"/health"'* ]]
  [[ "$output" == *'"xForwardedFor":"127.0.0.1"'* ]]
  [[ "$output" == *'"xForwardedProto":"http"'* ]]
  [[ "$output" == *"\"host\":\"127.0.0.1:$A_PORT\""* ]]
}

@test "nginx replaces a client's X-Forwarded-For with the address it sees: a client cannot name itself" {
  run curl -sS --max-time 5 -H 'X-Forwarded-For: 203.0.113.9, 10.0.0.1' "http://127.0.0.1:$W_PORT/api/v1/health"
  [ "$status" -eq 0 ]
  [[ "$output" == *'"xForwardedFor":"127.0.0.1"'* ]]
  [[ "$output" != *203.0.113.9* ]]
}

@test "the web UI port proxies the UI and /api/v1 to the web-ui upstream, Authorization passed on" {
  run curl -sS --max-time 5 "http://127.0.0.1:$W_PORT/dags/example/grid"
  [[ "$output" == *'"upstream":"web-ui"'* ]]
  [[ "$output" == *'"path":"/dags/example/grid"'* ]]
  run curl -sS --max-time 5 -H 'Authorization: Bearer t0k3n' "http://127.0.0.1:$W_PORT/api/v1/dags?limit=5"
  [[ "$output" == *'"upstream":"web-ui"'* ]]
  [[ "$output" == *'"path":"/api/v1/dags?limit=5"'* ]]
  [[ "$output" == *'"authorization":"Bearer t0k3n"'* ]]
}

@test "security headers on every response; no server version, no X-Powered-By" {
  run curl -sS --max-time 5 -D - -o /dev/null "http://127.0.0.1:$W_PORT/api/v1/health"
  for h in "X-Content-Type-Options: nosniff" "X-Frame-Options: SAMEORIGIN" "Referrer-Policy: strict-origin-when-cross-origin" \
    "Content-Security-Policy: frame-ancestors 'self'" "Permissions-Policy:" "Cross-Origin-Opener-Policy: same-origin"; do
    grep -qi "^$h" <<<"$output" || { echo "missing header: $h"; echo "$output"; false; }
  done
  if grep -qi '^X-Powered-By' <<<"$output"; then echo "X-Powered-By is sent"; echo "$output"; false; fi
  grep -qx $'Server: nginx\r' <<<"$output"
}

@test "request bodies: 1 MB passes, more than 16 MB is refused with 413" {
  head -c 1048576 /dev/zero >"$T/1m"
  run curl -sS --max-time 10 -o /dev/null -w '%{http_code}' --data-binary @"$T/1m" "http://127.0.0.1:$A_PORT/chat"
  [ "$output" = 200 ]
  head -c 17825792 /dev/zero >"$T/17m"
  run curl -sS --max-time 10 -D - -o /dev/null --data-binary @"$T/17m" "http://127.0.0.1:$A_PORT/chat"
  [[ "${lines[0]}" == "HTTP/1.1 413"* ]]
  # Errors nginx produces itself carry the security headers too.
  grep -qi '^X-Content-Type-Options: nosniff' <<<"$output"
}

@test "flow events stream through unbuffered: the first event arrives while the upstream holds the stream open" {
  # The upstream sends one event, then waits 10 s before the next; curl gives up after 3 s.
  start=$(date +%s)
  run curl -sS -N --max-time 3 "http://127.0.0.1:$A_PORT/orchestrator/flows/flow-abc123/events"
  [ "$status" -eq 28 ]
  [[ "$output" == *"event: first"*"data: assistant"* ]]
  [[ "$output" != *"event: second"* ]]
  [ $(($(date +%s) - start)) -lt 8 ]
}

@test "the flow events location turns buffering off and allows long streams" {
  block=$(sed -n '/location ~ \^\/orchestrator\/flows\//,/}/p' "$REPO/nginx/nginx.conf")
  grep -q 'proxy_buffering off;' <<<"$block"
  grep -q 'proxy_cache off;' <<<"$block"
  grep -q 'proxy_read_timeout 1h;' <<<"$block"
  grep -q 'proxy_pass http://assistant-api;' <<<"$block"
}

@test "/nginx-health answers on both ports without touching the upstreams" {
  run curl -sS --max-time 5 "http://127.0.0.1:$A_PORT/nginx-health"
  [ "$output" = ok ]
  run curl -sS --max-time 5 "http://127.0.0.1:$W_PORT/nginx-health"
  [ "$output" = ok ]
}

@test "a header the service sets itself is passed on alone; nginx fills in only the missing ones" {
  run curl -s -D - -o /dev/null "http://127.0.0.1:$W_PORT/own-headers"
  [ "$status" -eq 0 ]
  [ "$(grep -ci '^X-Frame-Options:' <<<"$output")" -eq 1 ]
  grep -qi "^X-Frame-Options: DENY" <<<"$output"
  [ "$(grep -ci '^Content-Security-Policy:' <<<"$output")" -eq 1 ]
  grep -qi "^Content-Security-Policy: frame-ancestors 'none'" <<<"$output"
  grep -qi "^X-Content-Type-Options: nosniff" <<<"$output"
}
