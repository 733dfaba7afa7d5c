# shellcheck shell=bash
# Installing the stack on the host (no containers): packages, Node.js, pnpm, PostgreSQL, Redis.
# Needs common.sh, os.sh, env-file.sh.

SVC_NODE_MAJOR=${SVC_NODE_MAJOR:-20}

# Is node >= 20.19 on PATH?
svc_node_ok() {
  local v major minor
  svc_have node || return 1
  v=$(node -p 'process.versions.node' 2>/dev/null) || return 1
  major=${v%%.*}
  minor=${v#*.}
  minor=${minor%%.*}
  [ "$major" -gt 20 ] || { [ "$major" -eq 20 ] && [ "$minor" -ge 19 ]; }
}

# Distribution packages for the host install, only those whose tool is missing (one entry may
# name several packages: the caller splits them).
svc_host_packages() {
  local family=$1 pkgs=() tool
  for tool in ssh ansible-playbook curl; do svc_have "$tool" || pkgs+=("$(svc_pkg_for "$tool")"); done
  [ -x /usr/sbin/sshd ] || pkgs+=(openssh-server)
  svc_have pg_isready || pkgs+=("$(svc_pkg_for postgres)")
  svc_have redis-server || pkgs+=("$(svc_pkg_for redis)")
  if [ "$family" = debian ] && ! svc_have gpg; then pkgs+=(gnupg); fi
  [ "${#pkgs[@]}" -eq 0 ] || printf '%s\n' "${pkgs[@]}"
}

# Node.js 20 from the distribution (RHEL module) or the NodeSource apt repository (Debian 12 ships 18).
svc_install_node() {
  local family=$1 keyring=/etc/apt/keyrings/nodesource.gpg
  if svc_node_ok; then svc_info "node $(node -v): ok"; return 0; fi
  case "$family" in
    rhel)
      if [ "$(svc_os_major)" -lt 10 ]; then svc_run dnf module enable -y "nodejs:$SVC_NODE_MAJOR"; fi
      svc_run dnf install -y nodejs npm
      ;;
    debian)
      svc_run install -d -m 755 /etc/apt/keyrings
      if svc_is_dry_run; then
        svc_info "would fetch the NodeSource signing key into $keyring and add deb.nodesource.com/node_$SVC_NODE_MAJOR.x"
      else
        curl -fsSL https://deb.nodesource.com/gpgkey/nodesource-repo.gpg.key | gpg --dearmor --yes -o "$keyring"
        printf 'deb [signed-by=%s] https://deb.nodesource.com/node_%s.x nodistro main\n' "$keyring" "$SVC_NODE_MAJOR" \
          >/etc/apt/sources.list.d/nodesource.list
      fi
      svc_pkg_install nodejs
      ;;
    *) svc_die "install Node.js >= 20.19 by hand on $(svc_os_name)" ;;
  esac
}

svc_install_pnpm() {
  local want
  want=$(node -p 'require("./package.json").packageManager.split("@")[1]' 2>/dev/null || echo 10)
  if svc_have pnpm; then svc_info "pnpm $(pnpm --version): ok"; return 0; fi
  svc_run npm install -g "pnpm@$want"
}

# PostgreSQL and Redis running on 127.0.0.1 (systemd units, or the daemons directly).
svc_start_databases() {
  local family=$1 v
  if pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
    svc_info "PostgreSQL: running"
  elif [ "$family" = rhel ]; then
    [ -f /var/lib/pgsql/data/PG_VERSION ] || svc_run postgresql-setup --initdb
    svc_start_daemon postgresql runuser -u postgres -- pg_ctl -D /var/lib/pgsql/data -l /var/lib/pgsql/server.log start
  else
    if svc_systemd_running; then
      svc_run systemctl enable --now postgresql
    else
      for v in /etc/postgresql/*; do
        [ -d "$v" ] && svc_run pg_ctlcluster --skip-systemctl-redirect "$(basename "$v")" main start
      done
    fi
  fi
  if redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
    svc_info "Redis: running"
  elif [ "$family" = rhel ]; then
    svc_start_daemon redis redis-server --daemonize yes --bind 127.0.0.1 --port 6379
  else
    svc_start_daemon redis-server redis-server --daemonize yes --bind 127.0.0.1 --port 6379
  fi
  if ! svc_is_dry_run; then
    for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null && break; sleep 1; done
    pg_isready -h 127.0.0.1 -p 5432 -q || svc_die "PostgreSQL does not answer on 127.0.0.1:5432"
  fi
}

# A `svc` role with a generated password owning database `svc`; DATABASE_URL in the env file.
# The password goes to psql on stdin, never on a command line.
svc_setup_database_role() {
  local file=$1 family=$2 pw hba
  if svc_env_has "$file" DATABASE_URL || [ -n "${DATABASE_URL:-}" ]; then
    svc_info "DATABASE_URL: kept"
    return 0
  fi
  if svc_is_dry_run; then
    svc_info "would create role svc (generated password) and database svc, and store DATABASE_URL in $file"
    return 0
  fi
  pw=$(svc_gen_secret)
  {
    echo "SELECT 'CREATE ROLE svc LOGIN' WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'svc') \\gexec"
    printf "ALTER ROLE svc WITH LOGIN PASSWORD '%s';\n" "$pw"
    echo "SELECT 'CREATE DATABASE svc OWNER svc' WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'svc') \\gexec"
  } | (cd / && runuser -u postgres -- psql -q -v ON_ERROR_STOP=1 -d postgres >/dev/null)
  if [ "$family" = rhel ]; then
    # RHEL's default pg_hba.conf uses ident on 127.0.0.1: allow password logins for svc first.
    hba=$(cd / && runuser -u postgres -- psql -qAt -d postgres -c 'SHOW hba_file')
    if ! grep -q '^host svc svc 127.0.0.1/32 scram-sha-256' "$hba"; then
      { echo "host svc svc 127.0.0.1/32 scram-sha-256"; cat "$hba"; } >"$hba.svc" && cat "$hba.svc" >"$hba" && rm -f "$hba.svc"
      (cd / && runuser -u postgres -- psql -q -d postgres -c 'SELECT pg_reload_conf()' >/dev/null)
    fi
  fi
  svc_env_set "$file" DATABASE_URL "postgres://svc:$pw@127.0.0.1:5432/svc"
  svc_info "database role svc: created; DATABASE_URL stored in $file"
}

# svc-plugins on PATH ($SVC_BIN_DIR, default /usr/local/bin): a wrapper that runs the checkout's
# binary. A svc-plugins installed by other means is kept.
svc_install_plugins_cli() {
  local repo bin=${SVC_BIN_DIR:-/usr/local/bin} target
  repo=$(svc_repo_root)
  target=$repo/packages/plugins/bin/svc-plugins
  if [ -f "$bin/svc-plugins" ] && ! grep -q 'Installed by the svc deployment scripts' "$bin/svc-plugins"; then
    svc_info "svc-plugins: $bin/svc-plugins (installed separately, kept)"
    return 0
  fi
  case "$target" in *"'"*) svc_warn "the checkout path contains a quote: run $target directly"; return 0 ;; esac
  if svc_is_dry_run; then
    svc_info "would write $bin/svc-plugins (runs $target)"
    return 0
  fi
  install -d -m 755 "$bin"
  printf '#!/bin/sh\n# Installed by the svc deployment scripts: the plugin CLI of the checkout in %s.\nexec '"'"'%s'"'"' "$@"\n' \
    "$repo" "$target" >"$bin/svc-plugins"
  chmod 755 "$bin/svc-plugins"
  svc_info "svc-plugins: $bin/svc-plugins"
}
