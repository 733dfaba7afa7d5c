import { randomBytes } from "node:crypto";
import { posix } from "node:path";
import { NonRetryableError } from "@svc/errors";
import type { HostExecutor } from "@svc/host";
import type { OperatorContext } from "../types";
import { sleep } from "./abortable-sleep";
import { CLEAN_UP_AFTER, SHARED_CONTROL_DIR } from "./ansible-run";

// Fixed scripts; paths and content travel as argv words and stdin, never as shell text.
const WRITE = 'umask 077 && cat > "$1"';
// Each command on a host is an sshd session and a login shell there (0.6-0.7 s on a host whose
// shell start-up is heavy): a play's preparation is two commands, not one per step.
// $1 playbook, $2 parent (with the shared control sockets' directory), $3 the run's directory, then
// name content pairs of files written beside (none secret: they travel as argv words); stdin the
// extra vars. Exit 66: no playbook.
const PREPARE = `test -f "$1" || { echo "playbook $1 not found" >&2; exit 66; }; mkdir -p -m 700 -- "$2" "$2/${SHARED_CONTROL_DIR}" && umask 077 && mkdir -- "$3" && cat > "$3/extra-vars.yml" || exit 1
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

/** The line the one-command play writes when it could not make its run directory (then exit 1). */
export const PREPARE_FAILED = "svc: cannot prepare ";
// PREPARE and the play in one command (for a play that needs nothing looked up on the host first):
// $1-$3 as PREPARE, $4 the number of name content pairs that follow, then the play's argv, run as
// CLEAN_UP_AFTER runs it. The files are written with umask 077 in subshells: the play keeps the
// SSH user's umask, as when it is a command of its own.
const PREPARE_THEN_PLAY = `test -f "$1" || { echo "playbook $1 not found" >&2; exit 66; }
d=$3; fail() { printf '${PREPARE_FAILED}%s\n' "$d" >&2; rm -rf -- "$d"; exit 1; }
mkdir -p -m 700 -- "$2" "$2/${SHARED_CONTROL_DIR}" && (umask 077 && mkdir -- "$d" && cat > "$d/extra-vars.yml") || fail
n=$4; shift 4; while [ "$n" -gt 0 ]; do (umask 077 && printf '%s' "$2" > "$d/$1") || fail; shift 2; n=$((n - 1)); done
set -- "$d" "$@"; ${CLEAN_UP_AFTER}`;

/** A fresh name for a run's directory under `parent` (eight letters and digits, as mktemp's XXXXXXXX: control sockets' paths in it stay within the 108-byte limit). */
export function runDirName(parent: string): string {
  return posix.join(parent, `svc-ansible.${Array.from(randomBytes(8), (b) => ALNUM[b % ALNUM.length]).join("")}`);
}

/**
 * argv of one command that checks the playbook, makes the run's directory `dir` with the extra vars
 * (the command's stdin) and `files` in it, and runs `play` there as CLEAN_UP_AFTER does: one host
 * command where prepareRunDir and the play are two. Exit 66: no playbook; PREPARE_FAILED: no directory.
 */
export function prepareThenPlayArgv(playbook: string, parent: string, dir: string, files: Record<string, string>, play: string[]): string[] {
  return ["sh", "-c", PREPARE_THEN_PLAY, "sh", playbook, parent, dir, String(Object.keys(files).length), ...Object.entries(files).flat(), ...play];
}

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
  const dir = runDirName(parent);
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
