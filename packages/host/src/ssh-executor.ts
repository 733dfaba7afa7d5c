import { constants } from "node:os";
import { HostUnreachableError } from "@svc/errors";
import { CommandTimeoutError, SudoRequiredError } from "./errors";
import { DEFAULT_MAX_BUFFER, withEnv, withSudo, type HostExecutor, type RunOptions, type RunResult } from "./executor";
import { checkFenced, fenceArgv } from "./fence";
import { LineSplitter } from "./line-splitter";
import { PgidSniffer, wrapForKill } from "./remote-wrapper";
import { openExecChannel, type ExecChannel } from "./ssh-exec-channel";
import { shellQuote } from "./shell-quote";
import { sshTarget, type SshOptions } from "./ssh-options";
import { SshPool } from "./ssh-pool";

const KILL_GRACE_MS = 2000;
/** Refused channel opens retried before giving up (backoff 10, 20, … ms: about 2 s in all). */
const MAX_REFUSALS = 20;

/**
 * The server answered and refused the channel or its exec (ssh2's messages for an open failure
 * and a failed exec request); a connection that is gone fails otherwise ("Not connected", a
 * timeout, a reset).
 */
function isRefusal(e: unknown): boolean {
  const m = e instanceof Error ? e.message : "";
  return (m.startsWith("(SSH) Channel open failure: ") && !m.endsWith("server closed channel unexpectedly")) || m === "Unable to exec";
}

let sharedPool: SshPool | undefined;
/** The process-wide pool, so executors created per task still reuse connections. */
export function sharedSshPool(): SshPool {
  return (sharedPool ??= new SshPool());
}

/** Runs argv on a host over SSH; the remote command string is built by shellQuote only. */
export class SshExecutor implements HostExecutor {
  readonly target: string;
  /** Whether the last run reused a pooled connection (tests, debug logs). */
  lastRunReusedConnection = false;
  private readonly isRoot: boolean;

  constructor(
    private readonly opts: SshOptions,
    private readonly pool: SshPool = sharedSshPool(),
  ) {
    this.target = sshTarget(opts);
    this.isRoot = opts.user === "root";
  }

  async run(argv: readonly string[], o: RunOptions = {}): Promise<RunResult> {
    const words = withSudo(withEnv(argv, o.env), o.root, this.isRoot);
    // The fence runs as the SSH user, outside sudo, inside the kill wrapper's process group.
    let command = shellQuote(wrapForKill(o.fence ? fenceArgv(o.fence, words) : words));
    if (o.cwd) command = `cd ${shellQuote([o.cwd])} && ${command}`;
    o.signal?.throwIfAborted();
    const sudo = words[0] === "sudo";
    const ch = await this.open(command);
    const result = await this.drive(ch, o, argv[0] ?? "", sudo);
    if (sudo && result.code === 1 && /sudo: (a password is required|a terminal is required)/.test(result.stderr)) {
      throw new SudoRequiredError(this.opts.user, argv[0] ?? "");
    }
    return o.fence ? checkFenced(result, this.target) : result;
  }

  async close(): Promise<void> {
    if (this.pool !== sharedPool) await this.pool.closeAll();
  }

  /** Open an exec channel; the lease is released when the channel closes. */
  private async open(command: string): Promise<ExecChannel> {
    // A pooled connection may have died since its last use: retry once on a fresh one, only when
    // the channel never opened (so the command cannot have run). A server that refuses a channel
    // on a live connection (a session it has not freed yet, or MaxSessions) keeps the connection
    // and the other commands on it: the pool takes fewer channels there and the open is retried.
    for (let attempt = 0, refusals = 0; ;) {
      const lease = await this.pool.acquire(this.opts);
      this.lastRunReusedConnection = !lease.fresh;
      try {
        const opened = await openExecChannel(lease, command);
        void opened.closed.then(() => lease.release());
        return opened;
      } catch (e) {
        if (isRefusal(e) && refusals < MAX_REFUSALS) {
          lease.refused();
          await new Promise((r) => setTimeout(r, 10 * ++refusals));
          continue;
        }
        lease.discard();
        if (attempt++ === 0 && !lease.fresh) continue;
        throw new HostUnreachableError(`cannot start a command on ${this.target}: ${(e as Error).message}`);
      }
    }
  }

  /** Signal the remote process group over a second channel (sudo when the command ran as root). */
  private async killGroup(pgid: number, sig: "TERM" | "KILL", sudo: boolean): Promise<void> {
    const argv = ["kill", "-s", sig, "--", `-${pgid}`];
    try {
      const { ch } = await this.open(shellQuote(sudo ? ["sudo", "-n", "--", ...argv] : argv));
      ch.resume();
      ch.stderr.resume();
      ch.end();
    } catch {
      // the connection is gone, and with it the session
    }
  }

  private drive({ ch, status, closed }: ExecChannel, o: RunOptions, label: string, sudo: boolean): Promise<RunResult> {
    const out = new LineSplitter(o.onStdout, o.maxBuffer ?? DEFAULT_MAX_BUFFER);
    const err = new LineSplitter(o.onStderr, o.maxBuffer ?? DEFAULT_MAX_BUFFER);
    const sniffer = new PgidSniffer((d) => err.push(d));
    return new Promise<RunResult>((resolve, reject) => {
      let stopped: Error | undefined;
      let timer: NodeJS.Timeout | undefined;
      let killTimer: NodeJS.Timeout | undefined;
      const stop = (why: Error) => {
        if (stopped) return;
        stopped = why;
        if (sniffer.pgid) void this.killGroup(sniffer.pgid, "TERM", sudo);
        killTimer = setTimeout(() => {
          if (sniffer.pgid) void this.killGroup(sniffer.pgid, "KILL", sudo);
          ch.close();
        }, KILL_GRACE_MS);
        killTimer.unref();
      };
      const onAbort = () => stop(o.signal?.reason instanceof Error ? o.signal.reason : new Error("aborted"));
      o.signal?.addEventListener("abort", onAbort, { once: true });
      if (o.timeoutMs) timer = setTimeout(() => stop(new CommandTimeoutError(label, o.timeoutMs!)), o.timeoutMs);
      ch.on("data", (d: Buffer) => out.push(d));
      ch.stderr.on("data", (d: Buffer) => sniffer.push(d));
      void closed.then(() => {
        if (timer) clearTimeout(timer);
        if (killTimer) clearTimeout(killTimer);
        o.signal?.removeEventListener("abort", onAbort);
        sniffer.end();
        const stdout = out.end();
        const stderr = err.end();
        if (stopped) return reject(stopped);
        const { code, signal } = status;
        // ssh2 names a signal as Node does (SIGTERM): 128 + its number, as a shell reports it;
        // 255 when the server sent no exit status, as OpenSSH's client reports it.
        const bySignal = signal ? 128 + (constants.signals[signal as NodeJS.Signals] ?? 0) : 255;
        resolve({ code: code ?? bySignal, ...(signal ? { signal } : {}), stdout, stderr });
      });
      if (o.stdin !== undefined) ch.end(o.stdin);
      else ch.end();
    });
  }
}
