#!/usr/bin/env bats
# shellcheck disable=SC2016 # scripts in single quotes, expanded by the shell that runs them
# What a new user meets on a fresh machine: the shell lint without shellcheck says how to install
# it, and set-up puts svc-vm and both MCP servers on PATH.

load helpers

LINK='. "$1/scripts/lib/common.sh"; . "$1/scripts/lib/host-prepare.sh"; hp_cli_links "$1" "$2"'

# A directory with only the given commands (links to the real ones): a PATH without the rest.
path_with() {
  local dir=$BATS_TEST_TMPDIR/bin t
  mkdir -p "$dir"
  for t in "$@"; do ln -sf "$(command -v "$t")" "$dir/$t"; done
  printf '%s' "$dir"
}

@test "lint-shell.sh without shellcheck exits 127 and says how to install it" {
  bin=$(path_with bash env git cat sed awk grep dirname tr)
  run -127 env PATH="$bin" bash "$REPO/scripts/lint-shell.sh"
  [[ "$output" == *"shellcheck is not installed"* ]]
  [[ "$output" == *"Install it: sudo "*"install -y "* ]]
  [[ "$output" != *"command not found"* ]]
}

@test "lint-shell.sh with shellcheck checks the files it is given" {
  printf '#!/usr/bin/env bash\necho $1\n' >"$BATS_TEST_TMPDIR/bad.sh"
  run bash "$REPO/scripts/lint-shell.sh" "$BATS_TEST_TMPDIR/bad.sh"
  [ "$status" -ne 0 ]
  [[ "$output" == *"SC2086"* ]]
}

@test "set-up links svc-vm, svc-hosts, svc-mcp-workflow and svc-mcp-assistant into the PATH directory" {
  dir=$BATS_TEST_TMPDIR/links
  mkdir -p "$dir"
  run env PATH="$dir:/usr/bin:/bin" bash -c "$LINK" _ "$REPO" "$dir"
  [ "$status" -eq 0 ]
  for c in svc-vm svc-hosts svc-mcp-workflow svc-mcp-assistant; do
    [ -L "$dir/$c" ] && [ -x "$dir/$c" ]
    [[ "$output" == *"$c: linked $dir/$c"* ]]
  done
  [ "$(readlink "$dir/svc-hosts")" = "$REPO/packages/hosts/bin/svc-hosts" ]
  [ "$(readlink "$dir/svc-mcp-workflow")" = "$REPO/services/mcp-workflow/bin/svc-mcp-workflow" ]
  [ "$(readlink "$dir/svc-mcp-assistant")" = "$REPO/services/mcp-assistant/bin/svc-mcp-assistant" ]
  # Run again: the links are found on PATH and kept.
  run env PATH="$dir:/usr/bin:/bin" bash -c "$LINK" _ "$REPO" "$dir"
  [ "$status" -eq 0 ]
  [[ "$output" == *"svc-mcp-assistant: $dir/svc-mcp-assistant -> "* ]]
}

@test "set-up replaces a broken link to an MCP server" {
  dir=$BATS_TEST_TMPDIR/links
  mkdir -p "$dir"
  ln -s /nonexistent/svc-mcp-workflow "$dir/svc-mcp-workflow"
  run env PATH="$dir:/usr/bin:/bin" bash -c "$LINK" _ "$REPO" "$dir"
  [ "$status" -eq 0 ]
  [[ "$output" == *"svc-mcp-workflow: replaced a broken link"* ]]
  [ -e "$dir/svc-mcp-workflow" ]
}

@test "a linked MCP server command runs from another directory through the link" {
  dir=$BATS_TEST_TMPDIR/links
  mkdir -p "$dir"
  ln -s "$REPO/services/mcp-workflow/bin/svc-mcp-workflow" "$dir/svc-mcp-workflow"
  cd "$BATS_TEST_TMPDIR"
  # An unknown argument: the server's own argument check answers, so its code loaded through the link.
  run timeout 60 "$dir/svc-mcp-workflow" --no-such-option
  [ "$status" -eq 1 ]
  [[ "$output" == *"unknown argument '--no-such-option' (use --stdio, or --http"* ]]
}
