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

// $1 seconds to go on, $2 host, $3 port, $4 pause between scans. Scans for the ed25519 key, each
// scan waiting 1 s for an answer (every 8th 10 s) and stops at the first server that answers, its
// output (keys on stdout, the banner comment on stderr) printed whole; prints nothing at the end.
const SCAN_UNTIL = `end=$(($(date +%s) + $1)); n=0
while :; do
  n=$((n + 1)); t=1; [ $((n % 8)) -ne 0 ] || t=10
  out=$(ssh-keyscan -T "$t" -t ed25519 -p "$3" -- "$2" 2>&1)
  case "$out" in *"# "*" SSH-"*) printf '%s\\n' "$out"; exit 0 ;; esac
  [ "$(date +%s)" -lt "$end" ] || exit 0
  sleep "$4"
done`;

/** Options of waitForHostKeys. */
export interface WaitKeysOptions extends HostKeyOptions {
  /** Seconds the command goes on scanning before it gives up (its caller checks the VM, then asks again). */
  forS: number;
  /** Seconds between scans (default 0.5). */
  pauseS?: number;
}

/**
 * The host keys of an SSH server that is still starting (a booting VM), scanned in a loop on the
 * host in one command until it answers or `forS` passes ([] then). Until a user-mode guest's network
 * is up, its forward accepts and then says nothing, and a scan begun then waits out its timeout even
 * once sshd listens: so each scan waits 1 s (every 8th 10 s, for a guest too loaded to send its
 * banner sooner), a fresh one follows at once, and no command's start-up is paid per scan. A server
 * that sent its banner but no ed25519 key (FIPS mode, or too slow for 1 s) is scanned again by
 * scanHostKeys, patiently.
 */
export async function waitForHostKeys(ex: HostExecutor, host: string, port: number, o: WaitKeysOptions): Promise<string[]> {
  const forS = Math.max(1, Math.ceil(o.forS));
  const argv = ["sh", "-c", SCAN_UNTIL, "sh", String(forS), host, String(port), String(o.pauseS ?? 0.5)];
  const r = await ex.run(argv, { root: o.root, timeoutMs: (forS + 30) * 1000, signal: o.signal });
  if (r.code !== 0) throw new Error(`scanning ${host}:${port} from ${ex.target} failed (exit ${r.code}): ${r.stderr.trim().slice(-300)}`);
  const keys = keyLines(r.stdout);
  if (keys.length || !/^# \S+ SSH-/m.test(r.stdout)) return keys;
  return scanHostKeys(ex, host, port, { root: o.root, signal: o.signal, timeoutS: 10 });
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
