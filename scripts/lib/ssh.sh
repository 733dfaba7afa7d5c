# shellcheck shell=bash
# SSH from the workflow engine to this host (spec 5.3): the SSH user's key, its authorized_keys
# entry, the host key pinned in a known_hosts file (explicit trust on first use), and a check.
# Host key checking is never disabled. Needs common.sh.

SVC_CONFIG_DIR=${SVC_CONFIG_DIR:-/etc/svc}

# The SSH user: SVC_SSH_USER, else USER, else the current user (as packages/config does).
svc_ssh_user() { printf '%s' "${SVC_SSH_USER:-${USER:-$(id -un)}}"; }
svc_ssh_port() { printf '%s' "${SVC_SSH_PORT:-22}"; }

svc_user_home() {
  local home
  home=$(getent passwd "$1" | cut -d: -f6)
  [ -n "$home" ] || return 1
  printf '%s' "$home"
}

# The private key: SVC_SSH_KEY_PATH, else the user's first existing id_ed25519/id_ecdsa/id_rsa,
# else ~/.ssh/id_ed25519 (to be generated).
svc_ssh_key_path() {
  local user=$1 home f
  if [ -n "${SVC_SSH_KEY_PATH:-}" ]; then printf '%s' "$SVC_SSH_KEY_PATH"; return 0; fi
  home=$(svc_user_home "$user") || return 1
  for f in id_ed25519 id_ecdsa id_rsa; do
    if [ -f "$home/.ssh/$f" ]; then printf '%s' "$home/.ssh/$f"; return 0; fi
  done
  printf '%s' "$home/.ssh/id_ed25519"
}

# The known_hosts file the services (and containers) use.
svc_ssh_known_hosts() { printf '%s' "${SVC_SSH_KNOWN_HOSTS:-$SVC_CONFIG_DIR/ssh/known_hosts}"; }

# Names the host key is pinned under: as seen from the host and from containers.
svc_ssh_host_names() {
  local port=$1 n out=""
  for n in 127.0.0.1 localhost host.docker.internal host.containers.internal ${SVC_SSH_EXTRA_HOST_NAMES:-}; do
    if [ "$port" = 22 ]; then out+=",$n"; else out+=",[$n]:$port"; fi
  done
  printf '%s' "${out#,}"
}

# Generate an ed25519 key without passphrase for USER at PATH when missing.
svc_ssh_ensure_key() {
  local user=$1 key=$2 dir group
  if [ -f "$key" ]; then
    svc_info "SSH key: $key (exists)"
    if [ ! -f "$key.pub" ] && ! svc_is_dry_run; then
      ssh-keygen -y -f "$key" >"$key.pub"
      chown "$user:" "$key.pub" 2>/dev/null || true
    fi
    return 0
  fi
  dir=$(dirname "$key")
  group=$(id -gn "$user")
  [ -d "$dir" ] || svc_run install -d -m 700 -o "$user" -g "$group" "$dir"
  svc_run ssh-keygen -q -t ed25519 -N "" -C "svc-engine@$(hostname)" -f "$key"
  svc_run chown "$user:$group" "$key" "$key.pub"
}

# Add the key's public half to USER's authorized_keys unless already there. SVC_SSH_AUTHORIZED_KEYS
# names the file when sshd uses another AuthorizedKeysFile than ~/.ssh/authorized_keys.
svc_ssh_authorize() {
  local user=$1 key=$2 home ak pub group blob line
  if ! home=$(svc_user_home "$user"); then
    svc_warn "no home directory for user $user"
    return 1
  fi
  ak=${SVC_SSH_AUTHORIZED_KEYS:-$home/.ssh/authorized_keys}
  group=$(id -gn "$user")
  if [ ! -f "$key.pub" ]; then
    svc_info "would add $key.pub to $ak"
    return 0
  fi
  pub=$(cat "$key.pub")
  blob=$(printf '%s' "$pub" | awk '{print $2}')
  if [ -f "$ak" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
      case " $line " in *" $blob "*) svc_info "authorized_keys: $ak already has the key"; return 0 ;; esac
    done <"$ak"
  fi
  if svc_is_dry_run; then
    svc_info "would add $key.pub to $ak"
    return 0
  fi
  [ -d "$(dirname "$ak")" ] || install -d -m 700 -o "$user" -g "$group" "$(dirname "$ak")"
  (umask 077 && printf '%s\n' "$pub" >>"$ak")
  chown "$user:$group" "$ak"
  chmod 600 "$ak"
  svc_info "authorized_keys: added $key.pub to $ak"
}

# Scan this host's SSH host keys on 127.0.0.1 and pin them under every name the services use.
# Trust on first use, made explicit: the fingerprints are printed; an existing pin that differs
# fails (a changed host key is never overwritten silently). Returns 1 on failure.
svc_ssh_pin_host_key() {
  local kh=$1 port=$2 names scan pinned current fp
  names=$(svc_ssh_host_names "$port")
  if svc_is_dry_run; then
    svc_info "would run: ssh-keyscan -p $port 127.0.0.1 and pin the keys in $kh as $names"
    return 0
  fi
  scan=$(ssh-keyscan -p "$port" -T 10 -t ed25519,ecdsa,rsa 127.0.0.1 2>/dev/null | awk -v n="$names" '!/^#/ && NF >= 3 {print n, $2, $3}' | sort -u)
  if [ -z "$scan" ]; then
    svc_warn "ssh-keyscan got no host key from 127.0.0.1:$port: is sshd running and listening?"
    return 1
  fi
  current=$(printf '%s\n' "$scan" | awk '{print $2, $3}' | sort -u)
  if [ -f "$kh" ]; then
    local first=${names%%,*}
    pinned=$(ssh-keygen -F "$first" -f "$kh" 2>/dev/null | awk '!/^#/ && NF >= 3 {print $2, $3}' | sort -u || true)
    if [ -n "$pinned" ]; then
      if [ -n "$(comm -12 <(printf '%s\n' "$pinned") <(printf '%s\n' "$current"))" ]; then
        svc_info "host key: already pinned in $kh"
        return 0
      fi
      svc_warn "the host key of 127.0.0.1:$port differs from the one pinned in $kh; if the change is expected, remove the old entry (ssh-keygen -R '$first' -f '$kh') and run again"
      return 1
    fi
  fi
  install -d -m 755 "$(dirname "$kh")"
  printf '%s\n' "$scan" >>"$kh"
  chmod 644 "$kh"
  svc_info "host key pinned in $kh for $names (trust on first use). Fingerprints:"
  fp=$(printf '%s\n' "$scan" | ssh-keygen -lf - 2>/dev/null || true)
  printf '%s\n' "$fp" | sed 's/^/      /'
}

# The check of spec 5.3: a trivial command over SSH to this host with the configured key,
# strict host key checking against the pinned known_hosts file.
svc_ssh_check() {
  local user=$1 key=$2 kh=$3 port=$4
  ssh -n -i "$key" -p "$port" -l "$user" \
    -o BatchMode=yes -o IdentitiesOnly=yes -o ConnectTimeout=10 \
    -o StrictHostKeyChecking=yes -o UserKnownHostsFile="$kh" -o GlobalKnownHostsFile=/dev/null \
    127.0.0.1 true
}
