#!/usr/bin/env bats
# svc_wait_http_body, the deploy script's wait for a healthy scheduler and a loaded catalogue: it
# matches the body, and a bearer token reaches the server in a header but never curl's argv.

load helpers

setup() {
  # shellcheck source=/dev/null
  source "$REPO/scripts/lib/common.sh"
  PORT=$(free_ports 1)
  cat >"$BATS_TEST_TMPDIR/server.py" <<'PY'
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        ok = self.headers.get("Authorization") == "Bearer s3cret-token"
        body = b'{"total_entries":3}' if ok else b'{"total_entries":0}'
        self.send_response(200); self.end_headers(); self.wfile.write(body)
    def log_message(self, *a): pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
  python3 "$BATS_TEST_TMPDIR/server.py" "$PORT" &
  SERVER=$!
  wait_port "$PORT"
  # A curl that records its argv, then runs the real one.
  mkdir -p "$BATS_TEST_TMPDIR/bin"
  printf '#!/usr/bin/env bash\nprintf "%%s\\n" "$*" >>"%s/argv.log"\nexec %s "$@"\n' "$BATS_TEST_TMPDIR" "$(command -v curl)" >"$BATS_TEST_TMPDIR/bin/curl"
  chmod +x "$BATS_TEST_TMPDIR/bin/curl"
}

teardown() { kill "$SERVER" 2>/dev/null || true; }

@test "svc_wait_http_body returns once the body matches, with the token in a header and not in curl's argv" {
  PATH="$BATS_TEST_TMPDIR/bin:$PATH" run svc_wait_http_body "http://127.0.0.1:$PORT/api/v1/dags?limit=1" '"total_entries":[1-9]' 6 s3cret-token
  [ "$status" -eq 0 ]
  [ -s "$BATS_TEST_TMPDIR/argv.log" ]
  run ! grep -q s3cret "$BATS_TEST_TMPDIR/argv.log"
}

@test "svc_wait_http_body gives up after its timeout when the body never matches" {
  run svc_wait_http_body "http://127.0.0.1:$PORT/api/v1/dags?limit=1" '"total_entries":[1-9]' 3 wrong-token
  [ "$status" -eq 1 ]
}
