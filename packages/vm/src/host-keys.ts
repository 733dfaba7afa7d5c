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

// $1 seconds to go on, $2 host, $3 port, $4 pause between scans, $5 the VM's directory to pin the
// keys in ("": none). Scans for the ed25519 key, each scan waiting 1 s for an answer, and stops at
// the first server that answers, its output (keys on stdout, the banner comment on stderr) printed
// whole. Every 8th scan also starts a patient one (10 s) beside them, for a guest too loaded to
// send its banner within 1 s; it never holds up the quick ones, and its output counts once it has
// ended (written whole, then renamed). Given $5, the keys are then pinned (pin) and a PIN line
// gives its exit code. Prints nothing when nothing answered in time.
const PIN = "svc-pin:";
// pin DIR KEY...: the keys in DIR/known_hosts, written whole and then renamed, so a reader never
// sees half a file. Returns 3 when DIR is missing (another VM backend). pinVmHostKeys and the scan
// loop both run it.
const PIN_FN = `pin() { d=$1; shift; [ -d "$d" ] || return 3; (umask 022; printf '%s\\n' "$@" > "$d/known_hosts.tmp" && mv "$d/known_hosts.tmp" "$d/known_hosts"); }`;
const SCAN_UNTIL = `${PIN_FN}
end=$(($(date +%s) + $1)); n=0; bg=
t=$(mktemp -d) || exit 1; trap '[ -z "$bg" ] || kill "$bg" 2>/dev/null; rm -rf -- "$t"' EXIT
answered() { case "$1" in *"# "*" SSH-"*) return 0 ;; esac; return 1; }
while :; do
  n=$((n + 1))
  out=$(ssh-keyscan -T 1 -t ed25519 -p "$3" -- "$2" 2>&1); answered "$out" && break
  if [ -f "$t/patient" ]; then out=$(cat "$t/patient"); answered "$out" && break; rm -f "$t/patient"; bg=; fi
  if [ $((n % 8)) -eq 0 ] && [ -z "$bg" ]; then
    (ssh-keyscan -T 10 -t ed25519 -p "$3" -- "$2" > "$t/scan" 2>&1; mv "$t/scan" "$t/patient") < /dev/null > /dev/null 2>&1 &
    bg=$!
  fi
  [ "$(date +%s)" -lt "$end" ] || exit 0
  sleep "$4"
done
printf '%s\\n' "$out"
keys=$(printf '%s\\n' "$out" | grep -E '^[^[:space:]]+ (ssh-|ecdsa-)[^[:space:]]+ [^[:space:]]+$')
[ -n "$5" ] && [ -n "$keys" ] || exit 0
set -f; IFS='
'; pin "$5" $keys; echo "${PIN} $?"`;

/** Options of waitForHostKeys. */
export interface WaitKeysOptions extends HostKeyOptions {
  /** Seconds the command goes on scanning before it gives up (its caller checks the VM, then asks again). */
  forS: number;
  /** Seconds between scans (default 0.5). */
  pauseS?: number;
  /** Pin the keys found in this VM's known_hosts (under the disks directory) in the same command, as pinVmHostKeys does. */
  pin?: { disksDir: string; vm: string };
}

/** What waitForHostKeys found: the keys ([] when nothing answered), and how they were pinned (null: not asked, or left to pinVmHostKeys). */
export interface WaitKeysResult {
  keys: string[];
  pin: PinResult | null;
}

/**
 * The host keys of an SSH server that is still starting (a booting VM), scanned in a loop on the
 * host in one command until it answers or `forS` passes ([] then). Until a user-mode guest's network
 * is up, its forward accepts and then says nothing, and a scan begun then waits out its timeout even
 * once sshd listens: so each scan waits 1 s, a fresh one follows at once, and no command's start-up
 * is paid per scan. A patient scan (10 s) goes on beside them from every 8th, for a guest too loaded
 * to send its banner sooner: it used to take the 8th scan's place, hiding a server that started
 * meanwhile for up to 10 s. Given `pin`, the keys are pinned by the same command (no second one
 * after the server answered). A
 * server that sent its banner but no ed25519 key (FIPS mode, or too slow for 1 s) is scanned again
 * by scanHostKeys, patiently, and its keys are not pinned here.
 */
export async function waitForHostKeys(ex: HostExecutor, host: string, port: number, o: WaitKeysOptions): Promise<WaitKeysResult> {
  const forS = Math.max(1, Math.ceil(o.forS));
  const pinDir = o.pin ? join(o.pin.disksDir, o.pin.vm) : "";
  const argv = ["sh", "-c", SCAN_UNTIL, "sh", String(forS), host, String(port), String(o.pauseS ?? 0.5), pinDir];
  const r = await ex.run(argv, { root: o.root, timeoutMs: (forS + 30) * 1000, signal: o.signal });
  if (r.code !== 0) throw new Error(`scanning ${host}:${port} from ${ex.target} failed (exit ${r.code}): ${r.stderr.trim().slice(-300)}`);
  const keys = keyLines(r.stdout);
  const pinned = new RegExp(`^${PIN} (\\d+)$`, "m").exec(r.stdout)?.[1];
  const pin = o.pin && pinned ? pinResult(Number(pinned), vmKnownHostsPath(o.pin.disksDir, o.pin.vm)) : null;
  if (keys.length || !/^# \S+ SSH-/m.test(r.stdout)) return { keys, pin };
  return { keys: await scanHostKeys(ex, host, port, { root: o.root, signal: o.signal, timeoutS: 10 }), pin: null };
}

/** Outcome of pinning: `skipped` when the VM has no directory under the disks directory (another backend). */
export type PinResult = { status: "pinned" | "skipped"; path: string } | { status: "failed"; path: string; exitCode: number };

/**
 * Pin the keys a new VM presented in its own known_hosts, beside its disks (where `svc-vm ssh`
 * reads it). Only for a VM svc just created and reached on the host's loopback: its first keys
 * are the ones to trust. Written whole, then renamed, so a reader never sees half a file.
 */
export async function pinVmHostKeys(ex: HostExecutor, disksDir: string, vm: string, keys: string[], o: HostKeyOptions = {}): Promise<PinResult> {
  const r = await ex.run(["sh", "-c", `${PIN_FN}; pin "$@"`, "sh", join(disksDir, vm), ...keys], { root: o.root, timeoutMs: 20_000, signal: o.signal });
  return pinResult(r.code, vmKnownHostsPath(disksDir, vm));
}

/** What the shell's pin returned: 0 pinned, 3 no directory (skipped), else failed. */
function pinResult(code: number, path: string): PinResult {
  if (code === 0) return { status: "pinned", path };
  if (code === 3) return { status: "skipped", path };
  return { status: "failed", path, exitCode: code };
}
