#!/usr/bin/env bats
# compose/compose.yaml and its image: validated offline with the compose tool (no engine needed).

load helpers

setup() {
  # The compose tool lets the shell environment win over --env-file: start from a clean slate.
  unset SVC_POSTGRES_PASSWORD SVC_REDIS_PASSWORD SVC_ADMIN_PASSWORD SVC_API_TOKEN SVC_SSH_USER SVC_MCP_ASSISTANT_TOKEN \
    SVC_MCP_WORKFLOW_ROLE SVC_MCP_ASSISTANT_ROLE \
    SVC_SSH_KEY_PATH SVC_SSH_KNOWN_HOSTS SVC_VAULT_PASSWORD_FILE SVC_SSH_UID SVC_SSH_GID
  read -r -a COMPOSE <<<"$(compose_cmd)"
  ENV_FILE=$FIXTURES/compose-test.env
  RESOLVED=$BATS_FILE_TMPDIR/resolved.yaml
  # The resolved configuration with every profile, computed once per file.
  [ -s "$RESOLVED" ] || config --profile mcp config >"$RESOLVED"
}

config() { "${COMPOSE[@]}" -f "$REPO/compose/compose.yaml" --env-file "$ENV_FILE" "$@"; }
query() { node "$FIXTURES/compose-query.cjs" "$1" <"$RESOLVED"; }
# The query's output holds each given line (a whole line, as grep -x matches it).
query_has() {
  local q=$1 line
  shift
  run query "$q"
  for line in "$@"; do
    grep -qx -- "$line" <<<"$output" || {
      echo "$q: no line $line in:"
      echo "$output"
      return 1
    }
  done
}

@test "compose config -q passes for the default profile" {
  run config config -q
  [ "$status" -eq 0 ]
  [ -z "$output" ]
}

@test "compose config -q passes with --profile mcp" {
  run config --profile mcp config -q
  [ "$status" -eq 0 ]
}

@test "profile mcp exists and holds exactly the two tool servers" {
  run config config --profiles
  [ "$status" -eq 0 ]
  [ "$output" = mcp ]
  run query 'Object.entries(c.services).filter(([, s]) => (s.profiles || []).includes("mcp")).map(([n]) => n).sort()'
  [ "$status" -eq 0 ]
  [ "$output" = "$(printf 'mcp-assistant\nmcp-workflow')" ]
}

@test "the default profile has every core service, each with a restart policy" {
  run query 'Object.entries(c.services).filter(([, s]) => !s.profiles || s.profiles.length === 0).map(([n, s]) => n + " " + s.restart).sort()'
  [ "$status" -eq 0 ]
  for s in postgres redis assistant-api orchestrator scheduler worker web-ui nginx; do
    grep -qx "$s unless-stopped" <<<"$output" || { echo "missing or no restart policy: $s"; echo "$output"; false; }
  done
  grep -qx "migrate no" <<<"$output"
}

@test "every long-running service has a healthcheck" {
  run query 'Object.entries(c.services).filter(([n, s]) => n !== "migrate" && !s.healthcheck).map(([n]) => n)'
  [ "$status" -eq 0 ]
  [ -z "$output" ]
}

@test "secrets have no defaults: without them the compose tool refuses the file" {
  run "${COMPOSE[@]}" -f "$REPO/compose/compose.yaml" --project-directory "$BATS_TEST_TMPDIR" config -q
  [ "$status" -ne 0 ]
  [[ "$output" == *"set SVC_"* ]]
}

@test "the passwords in the services come from the env file" {
  run query 'c.services["web-ui"].environment.SVC_ADMIN_PASSWORD + " " + c.services.postgres.environment.POSTGRES_PASSWORD + " " + c.services.worker.environment.DATABASE_URL'
  [ "$output" = "test-admin-password test-postgres-password postgres://svc:test-postgres-password@postgres:5432/svc" ]
}

@test "workers reach the host over SSH with a read-only key and the pinned known_hosts" {
  query_has 'c.services.worker.volumes' "/etc/svc-test/id_ed25519:/run/svc/ssh/id_key:ro" "/etc/svc-test/known_hosts:/run/svc/ssh/known_hosts:ro"
  run query 'c.services.worker.extra_hosts'
  [[ "$output" == *"host.docker.internal"*"host-gateway"* ]]
  run query '[c.services.worker.environment.SVC_SSH_HOST, c.services.worker.environment.SVC_SSH_USER, c.services.worker.environment.SVC_SSH_KEY_PATH, c.services.worker.environment.SVC_SSH_KNOWN_HOSTS, c.services.worker.user].join(" ")'
  [ "$output" = "host.docker.internal svc-test /run/svc/ssh/id_key /run/svc/ssh/known_hosts 1234:1234" ]
}

@test "the services that reach hypervisor hosts read the further hosts' keys at the same path, read-only" {
  for s in worker mcp-workflow; do
    query_has "c.services['$s'].volumes" "/etc/svc/keys:/etc/svc/keys:ro"
  done
  run query 'c.services.scheduler.volumes'
  [[ "$output" != *"/etc/svc/keys"* ]]
  run "$REPO/compose/entrypoint.sh" help
  [[ "$output" == *"svc-hosts ARGS..."* ]]
}

@test "volumes: postgres data, dags, playbooks, inventory" {
  run query 'c.services.postgres.volumes'
  [[ "$output" == "postgres-data:/var/lib/postgresql/data:rw" || "$output" == *"_postgres-data:/var/lib/postgresql/data:rw" ]]
  run query 'c.services.scheduler.volumes'
  [[ "$output" == *"/dags:/app/dags:ro" ]]
  query_has 'c.services.worker.volumes' "/var/lib/svc/inventory:/var/lib/svc/inventory:rw"
}

@test "playbooks and the vault password keep their host paths (ansible-playbook runs on the host)" {
  query_has 'c.services.worker.volumes' "/opt/svc-test/playbooks:/opt/svc-test/playbooks:ro" "/etc/svc-test/vault-password:/etc/svc-test/vault-password:ro"
  run query '[c.services.worker.environment.SVC_PLAYBOOKS_DIR, c.services.worker.environment.SVC_VAULT_PASSWORD_FILE, c.services.worker.environment.SVC_INVENTORY_DIR].join(" ")'
  [ "$output" = "/opt/svc-test/playbooks /etc/svc-test/vault-password /var/lib/svc/inventory" ]
}

@test "nginx publishes 8080 and 8888 and mounts the rendered configuration" {
  query_has 'c.services.nginx.ports' "0.0.0.0:8080:8080" "0.0.0.0:8888:8888"
  run query 'c.services.nginx.volumes'
  [[ "$output" == *"/nginx/nginx.conf:/etc/nginx/nginx.conf:ro" ]]
}

@test "nginx upstreams name compose services and their ports" {
  run grep -E '^\s*upstream [a-z-]+ \{' "$REPO/nginx/nginx.conf"
  [ "${#lines[@]}" -eq 2 ]
  services=$(query 'Object.keys(c.services)')
  while read -r host port; do
    grep -qx "$host" <<<"$services" || { echo "upstream host $host is not a compose service"; false; }
    run query "c.services[\"$host\"].expose"
    grep -qx "$port" <<<"$output"
  done < <(grep -E '^\s*server [a-z-]+:[0-9]+;' "$REPO/nginx/nginx.conf" | sed -E 's/^\s*server ([a-z-]+):([0-9]+);/\1 \2/')
  grep -q 'upstream assistant-api {' "$REPO/nginx/nginx.conf"
  grep -q 'upstream web-ui {' "$REPO/nginx/nginx.conf"
}

@test "the MCP tool servers listen on 127.0.0.1 by default" {
  run query 'c.services["mcp-workflow"].ports.concat(c.services["mcp-assistant"].ports)'
  [ "$output" = "$(printf '127.0.0.1:8889:8889\n127.0.0.1:8890:8890')" ]
}

@test "Dockerfile: base image from SVC_NODE_IMAGE, production dependencies only, tini, non-root" {
  f=$REPO/compose/Dockerfile
  grep -q '^ARG SVC_NODE_IMAGE=node:20-bookworm-slim' "$f"
  # shellcheck disable=SC2016 # the Dockerfile's own ${SVC_NODE_IMAGE}, matched literally
  [ "$(grep -c '^FROM ${SVC_NODE_IMAGE}' "$f")" -eq 2 ]
  grep -q 'npm install -g "pnpm@' "$f"
  grep -q 'pnpm install --offline --frozen-lockfile --prod' "$f"
  grep -q 'COPY --from=deps /app /app' "$f"
  grep -q 'openssh-client' "$f"
  grep -q '^USER node' "$f"
  grep -q '^ENTRYPOINT \["/usr/bin/tini", "-g", "--", "/app/compose/entrypoint.sh"\]' "$f"
  run query 'c.services.scheduler.build.dockerfile + " " + c.services.scheduler.build.args.SVC_NODE_IMAGE'
  [[ "$output" == *"compose/Dockerfile node:20-bookworm-slim" ]]
}

@test "every base image is a variable defaulting to the official image" {
  run query '[c.services.postgres.image, c.services.redis.image, c.services.nginx.image].join(" ")'
  [ "$output" = "postgres:16-bookworm redis:7-bookworm nginx:1.27-alpine" ]
  for v in SVC_NODE_IMAGE SVC_POSTGRES_IMAGE SVC_REDIS_IMAGE SVC_NGINX_IMAGE; do
    grep -q "\${$v:-" "$REPO/compose/compose.yaml"
  done
  run env SVC_POSTGRES_IMAGE=svc-offline/postgres:bookworm SVC_NODE_IMAGE=svc-offline/node:bookworm \
    "${COMPOSE[@]}" -f "$REPO/compose/compose.yaml" --env-file "$ENV_FILE" config
  [[ "$output" == *"image: svc-offline/postgres:bookworm"* ]]
  [[ "$output" == *"SVC_NODE_IMAGE: svc-offline/node:bookworm"* ]]
}

@test "the offline images never name a package host: the mirror is read from apt at run time" {
  run ! grep -rnE 'https?://[a-z0-9.-]*(debian|ubuntu)' "$REPO/scripts/build-offline-images.sh" "$REPO/scripts/lib/offline-images.sh" "$REPO/compose/offline"
  run bash -c '. "$1/scripts/lib/common.sh"; . "$1/scripts/lib/offline-images.sh"; SVC_DEBIAN_MIRROR=http://mirror.invalid/debian svc_debian_mirror; echo; svc_offline_env' _ "$REPO"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "http://mirror.invalid/debian" ]
  [ "${lines[1]}" = "SVC_NODE_IMAGE=svc-offline/node:bookworm" ]
  [ "${lines[4]}" = "SVC_NGINX_IMAGE=svc-offline/nginx:bookworm" ]
}

@test "build-offline-images.sh --print-env needs no root and no engine" {
  run "$REPO/scripts/build-offline-images.sh" --print-env
  [ "$status" -eq 0 ]
  [ "${#lines[@]}" -eq 4 ]
  run "$REPO/scripts/build-offline-images.sh" --bogus
  [ "$status" -eq 2 ]
}

@test "the entry point picks the service from its argument and rejects unknown ones" {
  run "$REPO/compose/entrypoint.sh" help
  [ "$status" -eq 0 ]
  [[ "$output" == *"scheduler, worker, orchestrator, web-ui, assistant-api, mcp-workflow, mcp-assistant"* ]]
  run "$REPO/compose/entrypoint.sh" no-such-service
  [ "$status" -eq 64 ]
  run query 'Object.entries(c.services).filter(([n]) => !["postgres", "redis", "nginx"].includes(n)).map(([n, s]) => n + "=" + s.command.join(" "))'
  for s in scheduler worker orchestrator web-ui assistant-api; do
    grep -qx "$s=$s" <<<"$output"
  done
  grep -qx "mcp-workflow=mcp-workflow --http --port 8889" <<<"$output"
  grep -qx "mcp-assistant=mcp-assistant --http --port 8890" <<<"$output"
}

@test "the build context leaves out local installs, history and env files" {
  for p in '**/node_modules' .git '**/.env' '**/*.env'; do grep -qxF "$p" "$REPO/.dockerignore"; done
}

@test "each service gets only the secrets it uses: API credentials for the HTTP services, the model key where the model is asked, no admin secret for the tool servers" {
  secrets() { query "Object.keys(c.services[\"$1\"].environment || {}).filter((k) => /^(SVC_ADMIN_PASSWORD|SVC_API_TOKEN|MODEL_PROVIDER_API_KEY|SVC_MCP_TOKEN|SVC_MCP_ASSISTANT_TOKEN)$/.test(k)).sort().join(\" \")"; }
  local expected=(
    "scheduler="
    "worker="
    "migrate="
    "orchestrator=MODEL_PROVIDER_API_KEY"
    "web-ui=SVC_ADMIN_PASSWORD SVC_API_TOKEN"
    "assistant-api=MODEL_PROVIDER_API_KEY SVC_ADMIN_PASSWORD SVC_API_TOKEN SVC_MCP_ASSISTANT_TOKEN"
    "mcp-workflow=SVC_MCP_TOKEN"
    "mcp-assistant=SVC_MCP_ASSISTANT_TOKEN SVC_MCP_TOKEN"
  )
  local e svc want got
  for e in "${expected[@]}"; do
    svc=${e%%=*}
    want=$(tr ' ' '\n' <<<"${e#*=}" | sort | tr '\n' ' ' | sed 's/ *$//')
    got=$(secrets "$svc")
    [ "$got" = "$want" ] || { echo "$svc: got '$got', want '$want'"; false; }
  done
}

@test "the tool servers act as user unless the env file says more; the assistant API grants the assistant tool server's own token that role" {
  run query '[c.services["mcp-workflow"].environment.SVC_MCP_WORKFLOW_ROLE, c.services["mcp-assistant"].environment.SVC_MCP_ASSISTANT_ROLE, c.services["assistant-api"].environment.SVC_MCP_ASSISTANT_ROLE].join(" ")'
  [ "$output" = "user user user" ]
  run query '[c.services["mcp-assistant"].environment.SVC_MCP_ASSISTANT_TOKEN, c.services["assistant-api"].environment.SVC_MCP_ASSISTANT_TOKEN].join(" ")'
  [ "$output" = "test-mcp-assistant-token test-mcp-assistant-token" ]
  SVC_MCP_WORKFLOW_ROLE=op run config --profile mcp config
  [[ "$output" == *"SVC_MCP_WORKFLOW_ROLE: op"* ]]
}

@test "the HTTP services behind nginx trust X-Forwarded-For from nginx's fixed address only" {
  run query 'c.services.nginx.networks.default.ipv4_address'
  [ "$status" -eq 0 ]
  [ "$output" = 172.30.58.2 ]
  for svc in web-ui assistant-api; do
    run query "c.services[\"$svc\"].environment.SVC_TRUST_PROXY"
    [ "$status" -eq 0 ]
    [ "$output" = 172.30.58.2 ]
  done
  # nginx's address is in the network's subnet and outside the range other containers get theirs from.
  run query 'c.networks.default.ipam.config.map((x) => x.subnet + " " + x.ip_range)'
  [ "$status" -eq 0 ]
  [ "$output" = "172.30.58.0/24 172.30.58.128/25" ]
}

@test "SVC_COMPOSE_NETWORK moves the network, nginx's address and the trust setting together" {
  run env SVC_COMPOSE_NETWORK=10.99.7 "${COMPOSE[@]}" -f "$REPO/compose/compose.yaml" --env-file "$ENV_FILE" config
  [ "$status" -eq 0 ]
  local resolved=$output
  run node "$FIXTURES/compose-query.cjs" 'c.services.nginx.networks.default.ipv4_address + " " + c.services["web-ui"].environment.SVC_TRUST_PROXY + " " + c.networks.default.ipam.config[0].subnet' <<<"$resolved"
  [ "$output" = "10.99.7.2 10.99.7.2 10.99.7.0/24" ]
}
