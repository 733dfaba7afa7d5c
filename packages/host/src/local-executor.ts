import { spawn } from "node:child_process";
import { constants } from "node:os";
import { CommandTimeoutError, SudoRequiredError } from "./errors";
import { DEFAULT_MAX_BUFFER, withSudo, type HostExecutor, type RunOptions, type RunResult } from "./executor";
import { checkFenced, fenceArgv } from "./fence";
import { LineSplitter } from "./line-splitter";
import { childEnv } from "@svc/config";
import { NonRetryableError } from "@svc/errors";

const KILL_GRACE_MS = 2000;

/** Where a LocalExecutor's commands get their environment from. */
export interface LocalExecutorOptions {
  /**
   * The service's environment (SvcConfig.childEnv; a CLI's own): only its CHILD_ENV_ALLOWLIST
   * variables (PATH, HOME, USER, locale) reach a command, then RunOptions.env over them. The
   * database URL, REDIS_URL and the SVC_* settings never do: a command run here sees what it
   * would see over SSH, not the worker's secrets.
   */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * Pass all of `env`, not only the allow-listed part: for a CLI a person runs (svc-vm,
   * svc-plugins), whose environment is theirs (SSH_AUTH_SOCK for a qemu+ssh URI, a proxy for a
   * download). Never for a service: a worker's svc-vm gets only what the worker passed it.
   */
  inheritAll?: boolean;
}

/** Runs argv on this machine with child_process.spawn: no shell, ever. */
export class LocalExecutor implements HostExecutor {
  readonly target = "local";
  private readonly isRoot = process.getuid?.() === 0;
  private readonly baseEnv: Readonly<Record<string, string>>;

  constructor(opts: LocalExecutorOptions) {
    this.baseEnv = opts.inheritAll ? definedOnly(opts.env) : childEnv(opts.env);
  }

  async run(argv: readonly string[], o: RunOptions = {}): Promise<RunResult> {
    if (argv.length === 0) throw new NonRetryableError("cannot run an empty command");
    for (const w of argv) if (w.includes("\0")) throw new NonRetryableError("command word contains a NUL byte, which no command can receive");
    o.signal?.throwIfAborted();
    const words = withSudo(argv, o.root, this.isRoot);
    const spawned = o.fence ? fenceArgv(o.fence, words) : words;
    const [cmd, ...args] = spawned as [string, ...string[]];
    const out = new LineSplitter(o.onStdout, o.maxBuffer ?? DEFAULT_MAX_BUFFER);
    const err = new LineSplitter(o.onStderr, o.maxBuffer ?? DEFAULT_MAX_BUFFER);
    const result = await new Promise<RunResult>((resolve, reject) => {
      // Own process group, so a timeout or cancel also reaches the command's children.
      const child = spawn(cmd, args, { cwd: o.cwd, env: { ...this.baseEnv, ...o.env }, stdio: ["pipe", "pipe", "pipe"], detached: true });
      let stopped: Error | undefined;
      let timer: NodeJS.Timeout | undefined;
      const kill = (sig: NodeJS.Signals) => {
        try {
          if (child.pid) process.kill(-child.pid, sig);
        } catch {
          // already gone
        }
      };
      const stop = (why: Error) => {
        if (stopped) return;
        stopped = why;
        kill("SIGTERM");
        setTimeout(() => kill("SIGKILL"), KILL_GRACE_MS).unref();
      };
      const onAbort = () => stop(o.signal?.reason instanceof Error ? o.signal.reason : new Error("aborted"));
      o.signal?.addEventListener("abort", onAbort, { once: true });
      if (o.timeoutMs) timer = setTimeout(() => stop(new CommandTimeoutError(argv[0]!, o.timeoutMs!)), o.timeoutMs);
      child.stdout.on("data", (d: Buffer) => out.push(d));
      child.stderr.on("data", (d: Buffer) => err.push(d));
      child.stdin.on("error", () => undefined); // the command may exit without reading stdin
      child.stdin.end(o.stdin);
      child.on("error", (e: NodeJS.ErrnoException) => {
        if (timer) clearTimeout(timer);
        o.signal?.removeEventListener("abort", onAbort);
        reject(e.code === "ENOENT" ? new NonRetryableError(`command not found: ${cmd}`) : e);
      });
      child.on("close", (code, sig) => {
        if (timer) clearTimeout(timer);
        o.signal?.removeEventListener("abort", onAbort);
        const stdout = out.end();
        const stderr = err.end();
        if (stopped) return reject(stopped);
        resolve({ code: code ?? 128 + (sig ? (constants.signals[sig] ?? 0) : 0), ...(sig ? { signal: sig } : {}), stdout, stderr });
      });
    });
    if (words[0] === "sudo" && result.code === 1 && /sudo: (a password is required|a terminal is required)/.test(result.stderr)) {
      throw new SudoRequiredError(this.baseEnv.USER ?? "current user", argv[0] ?? "");
    }
    return o.fence ? checkFenced(result, this.target) : result;
  }

  async close(): Promise<void> {}
}

function definedOnly(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => typeof e[1] === "string"));
}
