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

/**
 * A worker in its own process on a harness's queues and DAG folder, with a job lock of `lockMs`;
 * its database or Redis may be given another way in (a held forward). Added to `children`.
 */
export async function spawnHarnessWorker(
  h: { tdb: { url: string }; config: { redisUrl: string }; queues: { prefix: string }; dagsDir: string },
  children: ChildProcess[],
  o: { lockMs: string; databaseUrl?: string; redisUrl?: string },
): Promise<ChildProcess> {
  const env = {
    DATABASE_URL: o.databaseUrl ?? h.tdb.url,
    REDIS_URL: o.redisUrl ?? h.config.redisUrl,
    SVC_REDIS_PREFIX: h.queues.prefix,
    SVC_DAGS_DIR: h.dagsDir,
    SVC_LOG_LEVEL: "silent",
    SVC_WORKER_LOCK_MS: o.lockMs,
  };
  const c = await spawnEngine("worker", env);
  children.push(c);
  return c;
}
