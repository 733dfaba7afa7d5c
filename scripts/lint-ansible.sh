#!/usr/bin/env bash
# Lint the Ansible content: `ansible-playbook --syntax-check` on every playbook (playbooks/*.yml),
# then ansible-lint with the repository's .ansible-lint (profile production, offline) over
# playbooks/. With arguments, checks those files instead: each one that is a playbook (a YAML list
# of plays) is syntax-checked, and all of them are linted.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

missing=()
command -v ansible-playbook >/dev/null 2>&1 || missing+=(ansible-core)
command -v ansible-lint >/dev/null 2>&1 || missing+=(ansible-lint)
if [ ${#missing[@]} -gt 0 ]; then
  echo "lint-ansible: ${missing[*]} not installed; install with: apt-get install ${missing[*]}" >&2
  exit 1
fi

# Paths given relative to the caller's directory, made absolute before leaving it.
targets=()
for f in "$@"; do targets+=("$(realpath -- "$f")"); done
# From playbooks/: ansible-lint finds its files with git from here, and resolves the task files
# the playbooks include (tasks/…) as Ansible does.
cd "$root/playbooks"
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t playbooks < <(find . -maxdepth 1 -name '*.yml' -printf '%P\n' | sort)
  lint_paths=()
else
  # ansible-lint leaves out files outside its project: the project is the files' common folder.
  project="$(dirname -- "${targets[0]}")"
  for f in "${targets[@]}"; do
    while [ "$project" != / ] && [[ "$f" != "$project"/* ]]; do project="$(dirname -- "$project")"; done
  done
  playbooks=()
  for f in "${targets[@]}"; do
    # A playbook is a list whose items are plays (hosts:, or import_playbook:).
    if grep -qE '^- (name|hosts|import_playbook|ansible\.builtin\.import_playbook):' "$f"; then playbooks+=("$f"); fi
  done
  lint_paths=(--project-dir "$project" "${targets[@]}")
fi

# No colour and no Galaxy: output that reads the same in a log, and nothing fetched.
export ANSIBLE_NOCOLOR=1 NO_COLOR=1 ANSIBLE_DEPRECATION_WARNINGS=0

failed=0
for p in "${playbooks[@]}"; do
  if ! out="$(ansible-playbook --syntax-check -i localhost, "$p" 2>&1)"; then
    printf 'lint-ansible: syntax check failed: %s\n%s\n' "$p" "$out" >&2
    failed=1
  fi
done

if ! ansible-lint --offline --nocolor -q -p -c "$root/.ansible-lint" ${lint_paths[@]+"${lint_paths[@]}"}; then
  echo "lint-ansible: ansible-lint found problems (rules: https://ansible-lint.readthedocs.io/rules/)" >&2
  failed=1
fi
exit "$failed"
