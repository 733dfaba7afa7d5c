import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPool } from "@svc/db";
import { freePort, waitFor } from "@svc/testing";

/** A private PostgreSQL cluster in a temporary directory on a spare loopback port. */
export interface OwnPostgres {
  url: string;
  port: number;
  /** Stop the server (fast shutdown); the data stays. */
  stop(): Promise<void>;
  /**
   * Stop it as a crash does (immediate shutdown: no checkpoint, WAL still in the server's buffers
   * lost, i.e. commits made without waiting for the disk); the next start recovers from the WAL.
   */
  crash(): Promise<void>;
  /** Start it again on the same port and directory. */
  start(): Promise<void>;
  /** Stop it and delete its directory. */
  remove(): Promise<void>;
}

function binDir(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(path.join(root, v, "bin", "initdb")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions.length) throw new Error("no PostgreSQL server binaries under /usr/lib/postgresql/*/bin (apt-get install postgresql)");
  return path.join(root, versions[0]!, "bin");
}

/** initdb refuses to run as root: the cluster then belongs to the postgres user. */
function asOwner(cmd: string, args: string[]): string[] {
  return process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--", cmd, ...args] : [cmd, ...args];
}

function run(argv: string[]): void {
  const r = spawnSync(argv[0]!, argv.slice(1), { stdio: ["ignore", "pipe", "pipe"], timeout: 60000 });
  if (r.status !== 0) throw new Error(`${argv.join(" ")} failed: ${String(r.stderr ?? r.error)}`);
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = binDir();
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-chaos-pg-"));
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
    chownSync(dir, uid, gid);
  }
  const data = path.join(dir, "data");
  run(asOwner(path.join(bin, "initdb"), ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync"]));
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = async () => {
    run(asOwner(path.join(bin, "pg_ctl"), ["-D", data, "-o", opts, "-l", path.join(dir, "server.log"), "-w", "-t", "60", "start"]));
    await waitFor(
      async () => {
        const p = createPool(url, { max: 1 });
        try {
          return (await p.query("select 1 as ok")).rows.length === 1;
        } finally {
          await p.end().catch(() => undefined);
        }
      },
      { timeoutMs: 30000, what: "own postgres" },
    );
  };
  const stop = async () => run(asOwner(path.join(bin, "pg_ctl"), ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"]));
  const crash = async () => run(asOwner(path.join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "-t", "60", "stop"]));
  await start();
  return {
    url,
    port,
    start,
    stop,
    crash,
    async remove() {
      try {
        await stop();
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
