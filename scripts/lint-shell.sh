#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Run shellcheck on the given files, or on every shell script the repository tracks:
# *.sh, *.bash helpers, bats suites and .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/common.sh
. scripts/lib/common.sh
# shellcheck source=lib/os.sh
. scripts/lib/os.sh

if ! svc_have shellcheck; then
  case "$(svc_os_family)" in
    rhel) install="sudo dnf install -y ShellCheck   (from EPEL: sudo dnf install -y epel-release first)" ;;
    debian) install="sudo apt-get install -y shellcheck" ;;
    *) install="install ShellCheck with this system's package manager (https://www.shellcheck.net)" ;;
  esac
  printf 'lint-shell: shellcheck is not installed, so the shell scripts cannot be checked.\n  Install it: %s\n  (pnpm test:ci installs it with the other test tools.)\n' "$install" >&2
  exit 127
fi

if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files -- '*.sh' '*.bash' '*.bats' .ci/run)
fi
shellcheck "${files[@]}"
