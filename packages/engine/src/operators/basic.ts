import { spawn } from "node:child_process";
import { z } from "zod";
import { childEnv } from "@svc/config";
import { NonRetryableError } from "@svc/errors";
import type { Operator } from "../ports/operator";

/** Does nothing; joins and reports. */
export const noopOperator: Operator<{ message?: string }> = {
  name: "noop",
  description: "Do nothing (joins, markers); logs an optional message",
  instant: true,
  args: z.object({ message: z.string().optional() }),
  async run(args, ctx) {
    if (args.message) ctx.log(args.message);
    return {};
  },
};

/** Sleeps, printing a line per tick; honours cancellation (tests, timeouts, log following). */
export const sleepOperator: Operator<{ seconds: number; print_every?: number }> = {
  name: "sleep",
  description: "Sleep for a number of seconds, logging progress",
  args: z.object({ seconds: z.coerce.number().min(0).max(86400), print_every: z.coerce.number().min(0.01).optional() }),
  async run(args, ctx) {
    // Ticks on a fixed schedule from the start (not one timer after another), so a loaded machine's
    // late timers delay the lines but never drop one: `seconds / print_every` lines, the last at the end.
    const start = Date.now();
    const totalMs = args.seconds * 1000;
    const tickMs = (args.print_every ?? args.seconds) * 1000;
    const ticks = args.print_every ? Math.ceil(totalMs / tickMs - 1e-9) : 1;
    for (let n = 1; n <= ticks; n++) {
      const wait = Math.max(0, Math.min(start + n * tickMs, start + totalMs) - Date.now());
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => (clearTimeout(t), reject(ctx.signal.reason ?? new Error("aborted")));
        const t = setTimeout(() => (ctx.signal.removeEventListener("abort", onAbort), resolve()), wait);
        if (ctx.signal.aborted) return onAbort();
        ctx.signal.addEventListener("abort", onAbort, { once: true });
      });
      if (args.print_every) ctx.log(`tick ${n}`);
    }
    return { slept_seconds: args.seconds };
  },
};

/** Fails on purpose; `succeed_on_try` lets tests model flaky tasks. */
export const failOperator: Operator<{ message?: string; succeed_on_try?: number; non_retryable?: boolean }> = {
  name: "fail",
  description: "Fail with a message (tests); succeeds from try `succeed_on_try` on",
  args: z.object({ message: z.string().optional(), succeed_on_try: z.coerce.number().int().min(1).optional(), non_retryable: z.boolean().optional() }),
  async run(args, ctx) {
    if (args.succeed_on_try !== undefined && ctx.tryNumber >= args.succeed_on_try) {
      ctx.log(`succeeding on try ${ctx.tryNumber}`);
      return { try_number: ctx.tryNumber };
    }
    const msg = args.message ?? "failed on purpose";
    if (args.non_retryable) throw new NonRetryableError(msg);
    throw new Error(msg);
  },
};

/** The environment a shell task's command gets: the allow-listed variables (@svc/config's CHILD_ENV_ALLOWLIST), then the task's own `env`. */
export function shellEnv(workerEnv: Readonly<Record<string, string | undefined>>, taskEnv: Record<string, string> = {}): Record<string, string> {
  return childEnv(workerEnv, taskEnv);
}

/** Runs a local command from an argv array (never a shell string); streams output. */
export const shellOperator: Operator<{ argv: string[]; cwd?: string; env?: Record<string, string> }> = {
  name: "shell",
  description: "Run a local command given as an argv array; non-zero exit fails the task",
  args: z.object({ argv: z.array(z.string()).min(1), cwd: z.string().optional(), env: z.record(z.string(), z.string()).optional() }),
  async run(args, ctx) {
    const [cmd, ...rest] = args.argv as [string, ...string[]];
    return new Promise((resolve, reject) => {
      const child = spawn(cmd, rest, { cwd: args.cwd, env: shellEnv(ctx.config.childEnv, args.env), stdio: ["ignore", "pipe", "pipe"], signal: ctx.signal });
      const last: string[] = [];
      const pipe = (stream: NodeJS.ReadableStream, name: "stdout" | "stderr") => {
        let buf = "";
        stream.setEncoding?.("utf8");
        stream.on("data", (d: string) => {
          buf += d;
          let i: number;
          while ((i = buf.indexOf("\n")) >= 0) {
            const line = buf.slice(0, i);
            buf = buf.slice(i + 1);
            ctx.log(line, name);
            if (name === "stdout") {
              last.push(line);
              if (last.length > 20) last.shift();
            }
          }
        });
        stream.on("end", () => {
          if (buf) ctx.log(buf, name);
        });
      };
      pipe(child.stdout, "stdout");
      pipe(child.stderr, "stderr");
      child.on("error", (e) => reject(ctx.signal.aborted ? (ctx.signal.reason ?? e) : e));
      child.on("close", (code, sig) => {
        if (code === 0) resolve({ exit_code: 0, stdout_tail: last.join("\n") });
        else reject(ctx.signal.aborted ? (ctx.signal.reason ?? new Error("aborted")) : new Error(`command exited with ${code ?? `signal ${sig}`}`));
      });
    });
  },
};

export const BASIC_OPERATORS: Operator[] = [noopOperator, sleepOperator, failOperator, shellOperator];
