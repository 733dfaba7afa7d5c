import { join } from "node:path";
import type { HostExecutor } from "@svc/host";

/** Options of the host-key helpers. */
export interface HostKeyOptions {
  signal?: AbortSignal;
  /** Run as root (sudo -n when the executor's user is not): the workers do, the CLI runs as who it is. */
  root?: boolean;
}

/** Where a VM's own known_hosts lives: beside its disks, so it goes away with the VM. */
export function vmKnownHostsPath(disksDir: string, vm: string): string {
  return join(disksDir, vm, "known_hosts");
}

/** Options of a scan. */
export interface ScanOptions extends HostKeyOptions {
  /** Seconds ssh-keyscan waits on a connection that says nothing (default 10). */
  timeoutS?: number;
}

const keyLines = (out: string) =>
  out
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => /^\S+ (ssh-|ecdsa-)\S+ \S+$/.test(l));

/**
 * Host keys an SSH server at host:port offers, probed from the host itself (the VM endpoint
 * is the host's loopback for user-mode networking). Empty until sshd in the guest answers.
 * One ed25519 exchange (a TCG guest answers it in tenths; a scan of every type takes seconds);
 * every type only when the server answered without an ed25519 key (FIPS mode).
 */
export async function scanHostKeys(ex: HostExecutor, host: string, port: number, o: ScanOptions = {}): Promise<string[]> {
  const t = String(o.timeoutS ?? 10);
  const run = (types: string[]) => ex.run(["ssh-keyscan", "-T", t, ...types, "-p", String(port), "--", host], { timeoutMs: 20_000 + Number(t) * 1000, signal: o.signal });
  const first = await run(["-t", "ed25519"]);
  const keys = keyLines(first.stdout);
  // ssh-keyscan writes "# host:port SSH-2.0-…" to stderr for a server that answered.
  if (keys.length || !/^# \S+ SSH-/m.test(first.stderr)) return keys;
  return keyLines((await run([])).stdout);
}

/** Outcome of pinning: `skipped` when the VM has no directory under the disks directory (another backend). */
export type PinResult = { status: "pinned" | "skipped"; path: string } | { status: "failed"; path: string; exitCode: number };

/**
 * Pin the keys a new VM presented in its own known_hosts, beside its disks (where `svc-vm ssh`
 * reads it). Only for a VM svc just created and reached on the host's loopback: its first keys
 * are the ones to trust. Written whole, then renamed, so a reader never sees half a file.
 */
export async function pinVmHostKeys(ex: HostExecutor, disksDir: string, vm: string, keys: string[], o: HostKeyOptions = {}): Promise<PinResult> {
  const dir = join(disksDir, vm);
  const path = vmKnownHostsPath(disksDir, vm);
  const script = 'd="$1"; shift; [ -d "$d" ] || exit 3; umask 022; printf "%s\\n" "$@" > "$d/known_hosts.tmp" && mv "$d/known_hosts.tmp" "$d/known_hosts"';
  const r = await ex.run(["sh", "-c", script, "sh", dir, ...keys], { root: o.root, timeoutMs: 20_000, signal: o.signal });
  if (r.code === 0) return { status: "pinned", path };
  if (r.code === 3) return { status: "skipped", path };
  return { status: "failed", path, exitCode: r.code };
}
