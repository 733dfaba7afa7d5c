import { createHash } from "node:crypto";
import { NonRetryableError } from "@svc/errors";
import type { RunResult } from "./executor";

/**
 * At-most-once effects on the host. A try whose worker stopped heartbeating is retried on another
 * worker while its command may still run on the host; every effect command of a task try therefore
 * runs behind this fence, keyed by (dag, run, task, step), with the try number:
 *
 * - under a short meta lock: a newer try of the key already started -> refuse (exit FENCE_EXIT.fenced);
 *   else record this try as the newest, and note whether the last try that ran had finished;
 * - take the run lock, waiting while an older try's command holds it (the command itself does not
 *   inherit the lock fd, so daemons it leaves behind do not hold it);
 * - holding it, re-check the fence under the meta lock (a try overtaken while it waited stops
 *   here), then: the last try that ran was still running when this try arrived and recorded a
 *   result -> adopt it (its stdout replayed, its exit code returned, a stderr note naming it);
 *   else (it had finished before: a genuine retry; or it was killed and left no result) -> run the
 *   command fresh, its stdout captured to a file as it streams through and its exit code recorded
 *   (tmp + mv) when it ends. `adoptFinished` (the previous try was lost, not failed) also adopts
 *   a result that was already there when this try arrived.
 * The command's stdout and stderr pass through `tee -p`, so a lost connection (worker killed) does
 * not kill the command with SIGPIPE: it finishes and a retry adopts its result. Every tool the
 * script uses (and GNU tee's -p) is checked first: a host without one fails with its name, before anything runs.
 *
 * Files per key in the state directory: K.meta and K.run (lock files), K.newest, K.ran (try
 * numbers), K.<try>.out and K.<try>.rc (the result of the last try that ran; older ones are
 * removed when a try starts fresh or adopts). The next command that records a result sweeps other
 * keys' results untouched for a day (only a try that arrives while they are being made adopts
 * them) and any file untouched for 8 days (a try frozen longer is no longer fenced out).
 */
const FENCE_SCRIPT = String.raw`d=$1 k=$2 t=$3 a=$4; shift 5
err() { printf 'svc-fence: %s\n' "$*" >&2; }
case $k in ''|*[!0-9a-f]*) err "invalid fence key"; exit 96;; esac
case $t in ''|*[!0-9]*) err "invalid try number"; exit 96;; esac
for c in flock mkfifo tee find mv rm touch cat id chmod mkdir; do
  command -v "$c" >/dev/null 2>&1 || { err "$c is not installed on this host (flock: util-linux; find: findutils; the others: coreutils)"; exit 96; }
done
tee -p /dev/null </dev/null >/dev/null 2>&1 || { err "tee -p is not supported on this host: GNU coreutils 8.24 or later is not installed"; exit 96; }
[ -d "$d" ] || { mkdir -p -- "$d" && chmod 700 -- "$d"; } 2>/dev/null
o=$(umask); umask 077
{ [ -d "$d" ] && [ -w "$d" ]; } || { err "state directory $d is missing or not writable by $(id -un); create it (mode 700) or set SVC_HOST_STATE_DIR"; exit 96; }
p=$d/$k
exec 8>>"$p.meta" 9>>"$p.run" || { err "cannot open the lock files in $d"; exit 96; }
touch "$p.meta" "$p.run"
num() { v=$(cat "$1" 2>/dev/null); case $v in ''|*[!0-9]*) echo 0;; *) echo "$v";; esac; }
put() { printf '%s\n' "$2" >"$1.tmp" && mv -f "$1.tmp" "$1"; }
meta() { flock -w 60 8 || { err "the meta lock $p.meta stayed busy for 60 s"; exit 96; }; }
fence() { n=$(num "$p.newest"); [ "$n" -le "$t" ] || { err "fenced: try $n of this task already started; try $t stops here"; exit 97; }; }
meta; fence; put "$p.newest" "$t"
r=$(num "$p.ran"); f=0; [ -f "$p.$r.rc" ] && f=$r
flock -u 8
if ! flock -n 9; then
  err "try $r of this task is still running on this host; waiting for it to finish"
  flock 9 || { err "waiting for the run lock failed"; exit 96; }
fi
meta; fence
r=$(num "$p.ran")
if [ "$r" -gt 0 ] && [ -f "$p.$r.rc" ] && { [ "$r" != "$f" ] || [ "$a" = 1 ]; }; then
  rc=$(num "$p.$r.rc")
  if [ "$r" != "$t" ]; then
    touch "$p.$r.out"; mv -f "$p.$r.out" "$p.$t.out"; mv -f "$p.$r.rc" "$p.$t.rc"; put "$p.ran" "$t"
  fi
  flock -u 8
  err "adopted the result of try $r of this task (exit $rc): its command already ran on this host and was not run again"
  cat "$p.$t.out"
  exit "$rc"
fi
rm -f -- "$p".[0-9]*
put "$p.ran" "$t"; flock -u 8
mkfifo -m 600 "$p.$t.err" || { err "mkfifo in $d failed"; exit 96; }
tee -p /dev/null <"$p.$t.err" >&2 8>&- 9>&- &
e=$!
{ (umask "$o"; exec "$@") 2>"$p.$t.err" 8>&- 9>&-; echo $? >"$p.$t.rc.tmp"; } | tee -p "$p.$t.out" 8>&- 9>&-
wait "$e"
rm -f -- "$p.$t.err"
[ -f "$p.$t.rc.tmp" ] || exit 96
rc=$(num "$p.$t.rc.tmp"); mv -f "$p.$t.rc.tmp" "$p.$t.rc"
find "$d" -maxdepth 1 -type f ! -name "$k.*" \( -mtime +7 -o -mmin +1440 \( -name '*.out' -o -name '*.rc' \) \) -exec rm -f -- {} + 2>/dev/null
exit "$rc"`;

/** Exit codes of the fence itself (its stderr line starting `svc-fence:` says which). */
export const FENCE_EXIT = { setup: 96, fenced: 97 } as const;

/** How a command runs behind the fence (RunOptions.fence). */
export interface FenceOptions {
  /** Operator-owned directory on the host for the fence's files (SVC_HOST_STATE_DIR); never from a request. */
  stateDir: string;
  /** fenceKey(dag, run, task, step): hex, names the files. */
  key: string;
  /** The try number; a newer try of the same key fences this one out. */
  tryNumber: number;
  /** Adopt the last try's recorded result even when it had finished before this try arrived (its try was lost, not failed). */
  adoptFinished?: boolean;
}

/** The fence key of one effect step of a task: a hash, so any ids make a safe file name. */
export function fenceKey(dagId: string, runId: string, taskId: string, step = ""): string {
  return createHash("sha256")
    .update(JSON.stringify([dagId, runId, taskId, step]))
    .digest("hex")
    .slice(0, 32);
}

/** argv that runs `argv` behind the fence (to be wrapped by the kill wrapper, outside sudo). */
export function fenceArgv(f: FenceOptions, argv: readonly string[]): string[] {
  if (!f.stateDir.startsWith("/") || f.stateDir.includes("\0")) throw new NonRetryableError(`host state directory must be an absolute path, got ${JSON.stringify(f.stateDir)}`);
  if (!/^[0-9a-f]{16,64}$/.test(f.key)) throw new NonRetryableError("fence key must be 16 to 64 hex digits (use fenceKey)");
  if (!Number.isSafeInteger(f.tryNumber) || f.tryNumber < 1) throw new NonRetryableError(`fence try number must be a positive integer, got ${f.tryNumber}`);
  return ["sh", "-c", FENCE_SCRIPT, "svc-fence", f.stateDir, f.key, String(f.tryNumber), f.adoptFinished ? "1" : "0", "--", ...argv];
}

/** This try was overtaken on the host by a newer try of the same task; its outcome does not count. */
export class FencedError extends NonRetryableError {
  constructor(
    readonly target: string,
    detail: string,
  ) {
    super(`${detail} (on ${target}); the command was not run by this try`);
  }
}

/** Turn the fence's own refusals into errors; any other result is the command's. */
export function checkFenced(r: RunResult, target: string): RunResult {
  if (r.code !== FENCE_EXIT.fenced && r.code !== FENCE_EXIT.setup) return r;
  const line = r.stderr
    .split("\n")
    .filter((l) => l.startsWith("svc-fence: "))
    .pop();
  if (!line) return r;
  const detail = line.slice("svc-fence: ".length);
  if (r.code === FENCE_EXIT.fenced && detail.startsWith("fenced: ")) throw new FencedError(target, detail);
  if (r.code !== FENCE_EXIT.setup) return r;
  const msg = `the at-most-once fence could not run on ${target}: ${detail}`;
  // A missing tool or an unusable state directory needs the operator; a busy lock may pass.
  throw /not installed|not writable|invalid|cannot open|mkfifo/.test(detail) ? new NonRetryableError(msg) : new Error(msg);
}
