# shellcheck shell=bash
# Keeping the host-installed services running: one systemd unit per service when systemd runs
# the host, otherwise `pnpm start` (every service, one process group) under nohup with a pid file
# and a log file. Also the host nginx instance (--with-nginx). Needs common.sh, os.sh.

SVC_RUN_DIR=${SVC_RUN_DIR:-/run/svc}
SVC_LOG_DIR=${SVC_LOG_DIR:-/var/log/svc}
SVC_UNIT_DIR=${SVC_UNIT_DIR:-/etc/systemd/system}
SVC_HOST_SERVICES=(scheduler worker orchestrator web-ui assistant-api)

svc_unit_text() {
  local name=$1 user=$2 repo=$3 env_file=$4 node
  node=$(command -v node || echo /usr/bin/node)
  cat <<EOF
# Written by scripts/development/deploy-svc.sh
[Unit]
Description=svc $name
After=network-online.target postgresql.service redis.service redis-server.service
Wants=network-online.target

[Service]
Type=simple
User=$user
WorkingDirectory=$repo
EnvironmentFile=$env_file
ExecStart=$node --require tsx/cjs services/$name/src/main.ts
Restart=on-failure
RestartSec=5
NoNewPrivileges=true

[Install]
WantedBy=multi-user.target
EOF
}

svc_supervise_systemd() {
  local user=$1 repo=$2 env_file=$3 name units=()
  for name in "${SVC_HOST_SERVICES[@]}"; do
    [ -f "$repo/services/$name/src/main.ts" ] || continue
    units+=("svc-$name.service")
    if svc_is_dry_run; then
      svc_info "would write $SVC_UNIT_DIR/svc-$name.service"
    else
      svc_unit_text "$name" "$user" "$repo" "$env_file" >"$SVC_UNIT_DIR/svc-$name.service"
      svc_info "wrote $SVC_UNIT_DIR/svc-$name.service"
    fi
  done
  svc_run systemctl daemon-reload
  svc_run systemctl enable "${units[@]}"
  svc_run systemctl restart "${units[@]}"
}

svc_pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# Stop the nohup-started stack: TERM to its process group, KILL after 15 s.
svc_stop_nohup() {
  local pidfile=$SVC_RUN_DIR/svc.pid pid
  svc_pid_alive "$pidfile" || { svc_info "not running (no live pid in $pidfile)"; return 0; }
  pid=$(cat "$pidfile")
  [[ "$pid" =~ ^[0-9]+$ ]] || svc_die "bad pid file $pidfile"
  svc_run kill -TERM -- "-$pid"
  svc_is_dry_run && return 0
  for _ in $(seq 1 15); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  kill -0 "$pid" 2>/dev/null && kill -KILL -- "-$pid" 2>/dev/null
  rm -f "$pidfile"
}

# `pnpm start` in its own session (so its whole process group can be stopped) under nohup.
svc_supervise_nohup() {
  local user=$1 repo=$2 pidfile=$SVC_RUN_DIR/svc.pid log=$SVC_LOG_DIR/svc.log
  local runner=()
  [ "$user" = "$(id -un)" ] || runner=(runuser -u "$user" --)
  svc_run install -d -m 755 "$SVC_RUN_DIR" "$SVC_LOG_DIR"
  if svc_pid_alive "$pidfile"; then
    svc_info "restarting: the stack is running (pid $(cat "$pidfile"))"
    svc_stop_nohup
  fi
  if svc_is_dry_run; then
    svc_info "would run: cd $repo && setsid nohup $(svc_quote ${runner[@]+"${runner[@]}"} pnpm start) >>$log 2>&1 &  (pid in $pidfile)"
    return 0
  fi
  (cd "$repo" && exec setsid nohup ${runner[@]+"${runner[@]}"} pnpm start >>"$log" 2>&1 </dev/null) &
  echo $! >"$pidfile"
  svc_info "started pnpm start (pid $(cat "$pidfile"), log $log)"
}

svc_supervise() {
  if svc_systemd_running; then
    svc_log "process supervisor: systemd units"
    svc_supervise_systemd "$@"
  else
    svc_log "process supervisor: no systemd; pnpm start under nohup"
    svc_supervise_nohup "$1" "$2"
  fi
}

svc_supervisor_stop() {
  local name
  if svc_systemd_running; then
    for name in "${SVC_HOST_SERVICES[@]}"; do
      [ -f "$SVC_UNIT_DIR/svc-$name.service" ] && svc_run systemctl stop "svc-$name.service"
    done
    [ -f "$SVC_UNIT_DIR/svc-nginx.service" ] && svc_run systemctl stop svc-nginx.service
  else
    svc_stop_nohup
    if svc_pid_alive /run/svc-nginx.pid; then svc_run nginx -c "$SVC_CONFIG_DIR/nginx.conf" -s quit; fi
  fi
  return 0
}

# The host nginx instance: nginx/render-conf.sh --preset host into $SVC_CONFIG_DIR/nginx.conf.
svc_host_nginx() {
  local repo=$1 conf=$SVC_CONFIG_DIR/nginx.conf
  svc_have nginx || svc_pkg_install nginx
  svc_run install -d -m 755 /var/lib/nginx /var/lib/nginx/svc /var/log/nginx
  if svc_is_dry_run; then
    svc_info "would write $conf (nginx/render-conf.sh --preset host)"
  else
    "$repo/nginx/render-conf.sh" --preset host >"$conf"
  fi
  svc_run nginx -t -q -c "$conf"
  if svc_systemd_running; then
    if svc_is_dry_run; then svc_info "would write $SVC_UNIT_DIR/svc-nginx.service"; else
      cat >"$SVC_UNIT_DIR/svc-nginx.service" <<EOF
# Written by scripts/development/deploy-svc.sh
[Unit]
Description=svc nginx reverse proxy
After=network-online.target

[Service]
Type=simple
ExecStart=$(command -v nginx) -c $conf -g 'daemon off;'
ExecReload=$(command -v nginx) -c $conf -s reload
Restart=on-failure

[Install]
WantedBy=multi-user.target
EOF
    fi
    svc_run systemctl daemon-reload
    svc_run systemctl enable svc-nginx.service
    svc_run systemctl restart svc-nginx.service
  elif svc_pid_alive /run/svc-nginx.pid; then
    svc_run nginx -c "$conf" -s reload
  else
    svc_run nginx -c "$conf"
  fi
}
