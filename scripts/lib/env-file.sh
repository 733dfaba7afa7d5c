# shellcheck shell=bash
# The deployment env file: KEY=VALUE lines, root-only (mode 600), read by the compose tool
# (--env-file) and by the host install. Values are never printed. Needs common.sh.

SVC_CONFIG_DIR=${SVC_CONFIG_DIR:-/etc/svc}
SVC_ENV_FILE=${SVC_ENV_FILE:-$SVC_CONFIG_DIR/svc.env}

# A random secret: 48 hex characters (safe in URLs, env files and YAML without quoting).
svc_gen_secret() { od -An -tx1 -N24 /dev/urandom | tr -d ' \n'; }

# Value of KEY in FILE (empty when absent). The file is parsed, never sourced.
svc_env_get() {
  local file=$1 key=$2 line
  [ -r "$file" ] || return 0
  while IFS= read -r line || [ -n "$line" ]; do
    if [ "${line%%=*}" = "$key" ] && [ "$line" != "$key" ]; then
      printf '%s' "${line#*=}"
      return 0
    fi
  done <"$file"
}

svc_env_has() {
  local file=$1 key=$2 line
  [ -r "$file" ] || return 1
  while IFS= read -r line || [ -n "$line" ]; do
    if [ "${line%%=*}" = "$key" ] && [ "$line" != "$key" ]; then return 0; fi
  done <"$file"
  return 1
}

# Set KEY=VALUE in FILE (replacing an existing line), keeping the file mode 600.
svc_env_set() {
  local file=$1 key=$2 value=$3 tmp line
  case "$value" in *$'\n'*) svc_die "value for $key contains a newline" ;; esac
  tmp=$(umask 077 && mktemp "$file.XXXXXX")
  if [ -f "$file" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
      [ "${line%%=*}" = "$key" ] && [ "$line" != "$key" ] && continue
      printf '%s\n' "$line"
    done <"$file" >"$tmp"
  fi
  printf '%s=%s\n' "$key" "$value" >>"$tmp"
  chmod 600 "$tmp"
  mv -f "$tmp" "$file"
}

# Create the env file (mode 600, directory 755) when missing; tighten its mode when too open.
svc_env_ensure_file() {
  local file=$1 dir mode
  dir=$(dirname "$file")
  if [ -f "$file" ]; then
    mode=$(stat -c %a "$file")
    if [ "$mode" != 600 ]; then
      svc_warn "$file had mode $mode; setting 600"
      svc_run chmod 600 "$file"
    fi
    return 0
  fi
  [ -d "$dir" ] || svc_run install -d -m 755 "$dir"
  svc_is_dry_run && { svc_info "would create $file (mode 600)"; return 0; }
  (umask 077 && printf '# svc deployment settings (KEY=VALUE, secrets: keep mode 600)\n' >"$file")
  chmod 600 "$file"
  svc_info "created $file (mode 600)"
}

# Set KEY to a generated secret unless the environment or the file already has a value.
svc_env_ensure_secret() {
  local file=$1 key=$2
  if [ -n "${!key:-}" ]; then
    if ! svc_env_has "$file" "$key"; then
      if svc_is_dry_run; then svc_info "would store $key from the environment in $file"; else svc_env_set "$file" "$key" "${!key}"; svc_info "stored $key from the environment in $file"; fi
    fi
    return 0
  fi
  if svc_env_has "$file" "$key"; then svc_info "$key: kept (in $file)"; return 0; fi
  if svc_is_dry_run; then svc_info "would generate $key into $file"; return 0; fi
  svc_env_set "$file" "$key" "$(svc_gen_secret)"
  svc_info "$key: generated (stored in $file)"
}

# Set KEY to VALUE unless the file has it; the environment wins over VALUE.
svc_env_ensure_value() {
  local file=$1 key=$2 value=$3
  if svc_env_has "$file" "$key"; then return 0; fi
  [ -n "${!key:-}" ] && value=${!key}
  if svc_is_dry_run; then svc_info "would set $key=$value in $file"; return 0; fi
  svc_env_set "$file" "$key" "$value"
  svc_info "$key=$value (stored in $file)"
}

# Export every KEY=VALUE of FILE that the environment does not already set (environment wins).
svc_env_export() {
  local file=$1 line key
  [ -r "$file" ] || return 0
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in '' | '#'*) continue ;; esac
    key=${line%%=*}
    [[ "$key" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || continue
    [ -n "${!key:-}" ] && continue
    export "$key=${line#*=}"
  done <"$file"
}
