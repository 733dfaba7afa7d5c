import { randomBytes } from "node:crypto";
import { posix } from "node:path";
import { NonRetryableError } from "@svc/errors";
import type { HostExecutor } from "@svc/host";
import type { OperatorContext } from "../types";
import { sleep } from "./abortable-sleep";

// Fixed scripts; paths and content travel as argv words and stdin, never as shell text.
const WRITE = 'umask 077 && cat > "$1"';
// Each command on a host is an sshd session and a login shell there (0.6-0.7 s on a host whose
// shell start-up is heavy): a play's preparation is two commands, not one per step.
// $1 playbook, $2 parent, $3 the run's directory, then name content pairs of files written beside
// (none secret: they travel as argv words); stdin the extra vars. Exit 66: no playbook.
const PREPARE = `test -f "$1" || { echo "playbook $1 not found" >&2; exit 66; }; mkdir -p -m 700 -- "$2" && umask 077 && mkdir -- "$3" && cat > "$3/extra-vars.yml" || exit 1
d=$3; shift 3; while [ $# -ge 2 ]; do printf '%s' "$2" > "$d/$1" || exit 1; shift 2; done`;
// $1 the known_hosts to write, then host port pairs; stdin the inventory, written beside it once
// every target answered. One ed25519 exchange first (a slow guest answers one far sooner than
// three); every key type only where the server has no ed25519 key (FIPS mode). Exit 65 and the
// target on stderr: a target that did not answer.
const SCAN_AND_INVENTORY = `umask 077; kh=$1; shift; : > "$kh.new" || exit 1
while [ $# -ge 2 ]; do
  k=$(ssh-keyscan -T 15 -t ed25519 -p "$2" -- "$1" 2>/dev/null); [ -n "$k" ] || k=$(ssh-keyscan -T 15 -p "$2" -- "$1" 2>/dev/null)
  [ -n "$k" ] || { printf '%s:%s\n' "$1" "$2" >&2; exit 65; }
  printf '%s\n' "$k" >> "$kh.new"; shift 2
done
mv -- "$kh.new" "$kh" && cat > "\${kh%/*}/inventory.json"`;

const ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/**
 * The run's private directory under `parent` (a fresh random name made with mkdir: mktemp's
 * guarantee), after checking the playbook exists, with the extra vars written into it and `files`
 * (file name → content, given the directory; nothing secret) beside them: one command.
 */
export async function prepareRunDir(
  ex: HostExecutor,
  playbook: string,
  parent: string,
  extraVars: string,
  ctx: OperatorContext,
  files: (dir: string) => Record<string, string> = () => ({}),
): Promise<string> {
  // Eight letters and digits, as mktemp's XXXXXXXX: the control sockets' paths in it stay within the 108-byte limit.
  const dir = posix.join(parent, `svc-ansible.${Array.from(randomBytes(8), (b) => ALNUM[b % ALNUM.length]).join("")}`);
  const beside = Object.entries(files(dir)).flat();
  const r = await ex.run(["sh", "-c", PREPARE, "sh", playbook, parent, dir, ...beside], { stdin: extraVars, signal: ctx.signal });
  if (r.code === 66) throw new NonRetryableError(`playbook ${playbook} not found on ${ex.target}`);
  if (r.code !== 0) {
    await removeDir(ex, dir);
    throw new Error(`cannot prepare ${dir} on ${ex.target}: ${r.stderr.trim()}`);
  }
  return dir;
}

/** Scan and pin the targets' host keys into `dir`/known_hosts and write `dir`/inventory.json, in one command per try. */
export async function scanKeysAndWriteInventory(
  ex: HostExecutor,
  dir: string,
  targets: { host: string; port: number }[],
  inventory: string,
  ctx: OperatorContext,
): Promise<string> {
  const knownHosts = `${dir}/known_hosts`;
  const argv = ["sh", "-c", SCAN_AND_INVENTORY, "sh", knownHosts, ...targets.flatMap((t) => [t.host, String(t.port)])];
  // A guest under TCG on a busy host can miss one scan's deadline: a few tries before giving up.
  for (let attempt = 1; ; attempt++) {
    const r = await ex.run(argv, { stdin: inventory, signal: ctx.signal, timeoutMs: 60_000 + targets.length * 30_000 });
    if (r.code === 0) return knownHosts;
    if (r.code !== 65) throw new Error(`cannot write ${knownHosts} on ${ex.target}: ${r.stderr.trim()}`);
    if (attempt === 4) throw new Error(`SSH on ${r.stderr.trim()} did not answer a key scan from ${ex.target}; is the VM up (vm_wait_ssh)?`);
    await sleep(2000 * attempt, ctx.signal);
  }
}

/** Write `content` to `path` on the host, mode 0600. */
export async function writeHostFile(ex: HostExecutor, path: string, content: string, ctx: OperatorContext): Promise<void> {
  const r = await ex.run(["sh", "-c", WRITE, "sh", path], { stdin: content, signal: ctx.signal });
  if (r.code !== 0) throw new Error(`cannot write ${path} on ${ex.target}: ${r.stderr.trim()}`);
}

/** Remove a directory this task made (best effort). */
export async function removeDir(ex: HostExecutor, path: string): Promise<void> {
  await ex.run(["rm", "-rf", "--", path]).catch(() => undefined);
}
