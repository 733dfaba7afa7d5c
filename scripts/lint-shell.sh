#!/usr/bin/env bash
# Run shellcheck on the given files, or on every shell script the repository tracks:
# *.sh, *.bash helpers, bats suites and .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files -- '*.sh' '*.bash' '*.bats' .ci/run)
fi
shellcheck "${files[@]}"
