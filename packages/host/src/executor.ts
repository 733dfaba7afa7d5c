import type { FenceOptions } from "./fence";

/** Options for one command run through a HostExecutor. */
export interface RunOptions {
  /** Needs root: in non-root mode the command is prefixed with `sudo -n --`. */
  root?: boolean;
  /** Extra environment for the command (passed as `env K=V` words, never as shell text). */
  env?: Record<string, string>;
  /** Working directory. */
  cwd?: string;
  /** Bytes written to the command's stdin, then stdin is closed. */
  stdin?: string | Buffer;
  /** Kill the command after this many milliseconds (CommandTimeoutError). */
  timeoutMs?: number;
  /** Abort kills the command and rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called once per complete stdout line (no trailing newline), as it arrives. */
  onStdout?: (line: string) => void;
  /** Called once per complete stderr line, as it arrives. */
  onStderr?: (line: string) => void;
  /** Cap on the stdout/stderr kept in the result (the tail is kept); default 4 MiB each. */
  maxBuffer?: number;
  /**
   * Run behind the host-side fence of a task try (see fence.ts): a newer try of the same key
   * refuses a stale one (FencedError), and a try that finds an older one's command still running
   * waits for it and adopts its result instead of running the command again.
   */
  fence?: FenceOptions;
}

/** What a finished command returns; a non-zero exit is a result, not an exception. */
export interface RunResult {
  code: number;
  /** Set when the command died of a signal (code is then 128 + signal number, or 255). */
  signal?: string;
  stdout: string;
  stderr: string;
}

/** Runs argv commands on a host: locally (LocalExecutor) or over SSH (SshExecutor). */
export interface HostExecutor {
  /** Human-readable target, e.g. `root@127.0.0.1:22` or `local`. */
  readonly target: string;
  run(argv: readonly string[], opts?: RunOptions): Promise<RunResult>;
  /** Release connections; the executor may not be used afterwards. */
  close(): Promise<void>;
}

export const DEFAULT_MAX_BUFFER = 4 * 1024 * 1024;

/** Wrap argv with `sudo -n --` when the command needs root and we are not root. */
export function withSudo(argv: readonly string[], needsRoot: boolean | undefined, isRoot: boolean): string[] {
  return needsRoot && !isRoot ? ["sudo", "-n", "--", ...argv] : [...argv];
}

/** Prefix `env K=V ...` so environment travels as argv words (ssh servers drop most env requests). */
export function withEnv(argv: readonly string[], env: Record<string, string> | undefined): string[] {
  const entries = Object.entries(env ?? {});
  if (entries.length === 0) return [...argv];
  for (const [k] of entries) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw new TypeError(`invalid environment variable name: ${JSON.stringify(k)}`);
  }
  // env would take a first word containing '=' for another assignment.
  if (argv[0]?.includes("=")) throw new TypeError(`command name may not contain '=' when env is set: ${JSON.stringify(argv[0])}`);
  return ["env", "--", ...entries.map(([k, v]) => `${k}=${v}`), ...argv];
}
