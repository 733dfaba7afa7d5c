# shellcheck shell=bash
# ensure_pnpm: make a working pnpm 10 available. Corepack first; where corepack cannot verify the
# registry copy (no signatures), its shims are removed and npm installs pnpm instead. A pnpm
# command that exists but does not run (a shim left by an earlier attempt) counts as missing.
ensure_pnpm() {
  pnpm --version >/dev/null 2>&1 && return 0
  if corepack enable >/dev/null 2>&1 && corepack prepare pnpm@10 --activate >/dev/null 2>&1 && pnpm --version >/dev/null 2>&1; then
    return 0
  fi
  corepack disable >/dev/null 2>&1 || true
  echo "==> corepack cannot provide pnpm here; installing it with npm" >&2
  npm install -g pnpm@10 --no-fund --no-audit --loglevel=error >/dev/null
  pnpm --version >/dev/null
}
