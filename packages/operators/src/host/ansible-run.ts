// How a play runs against its targets: the inventory, SSH reuse, and the run directory's clean-up.
import { createHash } from "node:crypto";

// ansible-playbook ($2...) run by a shell that removes the run's directory ($1) when it ends, on an
// error or a TERM/HUP/INT as well (only SIGKILL skips it), and says so on stderr (removedLine); the
// play's exit status is the command's. A try that adopts an earlier try's result (the fence) never
// runs it, so only that line, not the exit status, tells the task its directory is gone.
export const CLEAN_UP_AFTER = `d=$1; shift; trap 'rm -rf -- "$d" && printf "svc: removed %s\\n" "$d" >&2' EXIT; trap 'exit 143' TERM HUP INT; "$@"`;

/** The line CLEAN_UP_AFTER writes once it removed `dir`. */
export const removedLine = (dir: string) => `svc: removed ${dir}`;

/**
 * One SSH connection per target for the whole play, its control socket in the run's own temporary
 * directory (removed with it; not the SSH user's ~/.ansible/cp) or, for a target whose keys were
 * pinned, the one its plays share (sharedControlPath), and pipelining: each task is one
 * SSH exchange instead of a temporary directory, a file copy and a run. No compression: the targets
 * are on the host's loopback or bridge, where -C costs CPU (a TCG guest's most of all) and saves nothing.
 */
export function sshReuseEnv(dir: string, controlPath = `${dir}/cp-%r@%h:%p`): Record<string, string> {
  return {
    ANSIBLE_PIPELINING: "True",
    ANSIBLE_SSH_ARGS: `-o ControlMaster=auto -o ControlPersist=30s -o ControlPath=${controlPath}`,
  };
}

/** Where the control sockets shared between runs live, under the runs' parent (PREPARE makes it, mode 0700). */
export const SHARED_CONTROL_DIR = ".ssh-control";
// ssh binds a master's socket at the path plus 17 characters before renaming it; a Unix socket's path has 107 at most.
const MAX_CONTROL_PATH = 90;

/**
 * The control socket a pinned target's plays share (the next play of the same VM, within
 * ControlPersist, reuses the connection the last one opened: one SSH handshake fewer, about a second
 * on a TCG guest): named by the endpoint and its pinned keys, so a run that pins other keys never
 * rides on a connection verified against different ones. Null when the path would be too long for a
 * socket (the run's own socket then, as without pinned keys).
 */
export function sharedControlPath(parent: string, t: InventoryTarget, keys: string[]): string | null {
  const id = createHash("sha256")
    .update(`${t.user}@${t.host}:${t.port}\n${keys.join("\n")}`)
    .digest("hex")
    .slice(0, 32);
  const path = `${parent}/${SHARED_CONTROL_DIR}/${id}`;
  return path.length <= MAX_CONTROL_PATH ? path : null;
}

/** An SSH target of a play (as ansible_playbook's `hosts` entries). */
export interface InventoryTarget {
  name: string;
  host: string;
  port: number;
  user: string;
}

/** Inventory of SSH targets that share their ssh arguments, key and Python (direct, or through a routed host). */
export function targetsInventory(hosts: InventoryTarget[], sshArgs: string, key: string | undefined, interpreter: string) {
  const entry = (h: InventoryTarget) => ({
    ansible_host: h.host,
    ansible_port: h.port,
    ansible_user: h.user,
    ansible_ssh_common_args: sshArgs,
    ansible_python_interpreter: interpreter,
    ...(key ? { ansible_ssh_private_key_file: key } : {}),
  });
  return { all: { hosts: Object.fromEntries(hosts.map((h) => [h.name, entry(h)])) } };
}

/** Inventory for SSH targets, each target's host key pinned (scanned into `dir`/known_hosts with it) and required for the whole run. */
export function vmInventory(dir: string, hosts: InventoryTarget[], key: string | undefined, interpreter: string) {
  // The VM was just created by us and is reached on the host's loopback: no StrictHostKeyChecking=no.
  return targetsInventory(hosts, `-o UserKnownHostsFile=${dir}/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes`, key, interpreter);
}
