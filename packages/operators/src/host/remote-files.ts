import type { HostExecutor } from "@svc/host";
import type { OperatorContext } from "../types";
import { sleep } from "./abortable-sleep";

// Fixed scripts; paths and content travel as argv words and stdin, never as shell text.
const WRITE = 'umask 077 && cat > "$1"';
// One ed25519 exchange first (a slow guest answers one far sooner than three); every key type only
// where the server has no ed25519 key (FIPS mode).
const KEYSCAN_TO = 'ssh-keyscan -T 15 -t ed25519 -p "$2" -- "$3" > "$1" 2>/dev/null; test -s "$1" || ssh-keyscan -T 15 -p "$2" -- "$3" > "$1" 2>/dev/null; test -s "$1"';

/** Create a private temp directory under `parent` on the host; returns its path. */
export async function makeTempDir(ex: HostExecutor, parent: string, ctx: OperatorContext): Promise<string> {
  const mk = await ex.run(["mkdir", "-p", "-m", "700", "--", parent], { signal: ctx.signal });
  if (mk.code !== 0) throw new Error(`cannot create ${parent} on ${ex.target}: ${mk.stderr.trim()}`);
  const r = await ex.run(["mktemp", "-d", "-p", parent, "svc-ansible.XXXXXXXX"], { signal: ctx.signal });
  if (r.code !== 0) throw new Error(`mktemp in ${parent} failed on ${ex.target}: ${r.stderr.trim()}`);
  return r.stdout.trim();
}

/** Write `content` to `path` on the host, mode 0600. */
export async function writeHostFile(ex: HostExecutor, path: string, content: string, ctx: OperatorContext): Promise<void> {
  const r = await ex.run(["sh", "-c", WRITE, "sh", path], { stdin: content, signal: ctx.signal });
  if (r.code !== 0) throw new Error(`cannot write ${path} on ${ex.target}: ${r.stderr.trim()}`);
}

/** Pin the current host keys of host:port into `path` (known_hosts format) from the host. */
export async function keyscanTo(ex: HostExecutor, path: string, host: string, port: number, ctx: OperatorContext): Promise<void> {
  // A guest under TCG on a busy host can miss one scan's deadline: a few tries before giving up.
  for (let attempt = 1; attempt <= 4; attempt++) {
    const r = await ex.run(["sh", "-c", KEYSCAN_TO, "sh", path, String(port), host], { signal: ctx.signal, timeoutMs: 60_000 });
    if (r.code === 0) return;
    if (attempt < 4) await sleep(2000 * attempt, ctx.signal);
  }
  throw new Error(`SSH on ${host}:${port} did not answer a key scan from ${ex.target}; is the VM up (vm_wait_ssh)?`);
}

/** Remove a directory this task made (best effort). */
export async function removeDir(ex: HostExecutor, path: string): Promise<void> {
  await ex.run(["rm", "-rf", "--", path]).catch(() => undefined);
}
