import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

const FIXTURE = path.join(__dirname, "fixtures", "engine-process.ts");
// tsx registered in-process (not its CLI, which forks): SIGKILL must hit the engine process itself.
const TSX_CJS = require.resolve("tsx/cjs");

/** Start a scheduler or worker in a child process with the given environment; resolves when ready. */
export async function spawnEngine(role: "scheduler" | "worker", env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--require", TSX_CJS, FIXTURE], { env: { ...process.env, ...env, ENGINE_ROLE: role }, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  child.stderr.on("data", (d) => (err += String(d)));
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${role} did not start: ${err}`)), 30000);
    child.stdout.on("data", (d) => String(d).includes("ready") && (clearTimeout(t), resolve()));
    child.once("exit", (code) => (clearTimeout(t), reject(new Error(`${role} exited ${code}: ${err}`))));
  });
  return child;
}

/** SIGKILL and wait for the exit. */
export async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await exited;
}
