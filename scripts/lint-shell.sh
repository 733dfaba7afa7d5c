#!/usr/bin/env bash
# shellcheck every shell script the repository tracks: *.sh, *.bash helpers, bats suites and .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files -- '*.sh' '*.bash' '*.bats' .ci/run)
shellcheck "${files[@]}"
