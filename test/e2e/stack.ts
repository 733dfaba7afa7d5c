// The whole stack as `pnpm start` runs it (scripts/development/start-stack.ts), in child processes
// with this test's own database, Redis prefix, ports and host settings.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import path from "node:path";

export const REPO_ROOT = path.resolve(__dirname, "../..");

export interface RunningStack {
  assistantUrl: string;
  webUiUrl: string;
  /** Everything the stack printed, for diagnostics. */
  output(): string;
  stop(): Promise<void>;
}

/** Start every service through start-stack.ts; resolves once it prints that the stack is healthy. */
export async function startStack(env: Record<string, string>, timeoutMs = 180_000): Promise<RunningStack> {
  const tsx = require.resolve("tsx/cjs");
  const child: ChildProcess = spawn(process.execPath, ["--require", tsx, path.join(REPO_ROOT, "scripts/development/start-stack.ts")], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, SVC_LOG_FORMAT: "json" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    const t = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 15_000);
    await exited;
    clearTimeout(t);
  };
  const deadline = Date.now() + timeoutMs;
  while (!out.includes("svc is up and healthy")) {
    if (child.exitCode !== null) throw new Error(`the stack exited (${child.exitCode}):\n${out.slice(-4000)}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the stack was not healthy within ${timeoutMs / 1000} s:\n${out.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    assistantUrl: `http://127.0.0.1:${env.SVC_ASSISTANT_PORT}`,
    webUiUrl: `http://127.0.0.1:${env.SVC_WEB_UI_PORT}`,
    output: () => out,
    stop,
  };
}

/** Run a script of this repository; resolves to its exit code and output. */
export function runScript(script: string, args: string[], env: Record<string, string>): { code: number; out: string } {
  const r = spawnSync("bash", [path.join(REPO_ROOT, script), ...args], { env: { ...process.env, ...env }, encoding: "utf8", timeout: 1_500_000 });
  return { code: r.status ?? -1, out: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}
