import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, readFileSync, type WriteStream } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../..");

/** One service of the stack as a child process (`services/<name>/src/main.ts`), restartable. */
export interface ServiceProc {
  name: string;
  pid(): number | undefined;
  /** Start (again) with the same environment. */
  start(): void;
  /** kill -9: no shutdown hook runs. */
  kill9(): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  /** Resident set size in MB, read from /proc (undefined when not running). */
  rssMb(): number | undefined;
}

/** `service` is the folder under services/; output goes to `logFile`; `nodeArgs` go to node (e.g. --cpu-prof). */
export function serviceProc(name: string, service: string, env: NodeJS.ProcessEnv, logFile: string, nodeArgs: readonly string[] = []): ServiceProc {
  let child: ChildProcess | undefined;
  let log: WriteStream | undefined;
  const tsx = require.resolve("tsx/cjs");
  const alive = () => !!child && child.exitCode === null && child.signalCode === null;
  const exited = (c: ChildProcess) => (c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => c.once("exit", () => r())));
  return {
    name,
    pid: () => (alive() ? child!.pid : undefined),
    start() {
      log ??= createWriteStream(logFile, { flags: "a" });
      child = spawn(process.execPath, [...nodeArgs, "--require", tsx, path.join(ROOT, "services", service, "src", "main.ts")], {
        cwd: ROOT,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stdout!.pipe(log, { end: false });
      child.stderr!.pipe(log, { end: false });
    },
    async kill9() {
      const c = child;
      if (!c || !alive()) return;
      c.kill("SIGKILL");
      await exited(c);
    },
    async stop(graceMs = 10000) {
      const c = child;
      if (c && alive()) {
        c.kill("SIGTERM");
        const t = setTimeout(() => c.kill("SIGKILL"), graceMs);
        await exited(c);
        clearTimeout(t);
      }
      log?.end();
      log = undefined;
    },
    rssMb() {
      const p = alive() ? child!.pid : undefined;
      if (!p) return undefined;
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, "utf8"));
        return m ? Number(m[1]) / 1024 : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
