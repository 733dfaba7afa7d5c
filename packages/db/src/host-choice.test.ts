// Host choice against real servers: two small PostgreSQL clusters of this test's own (one starts
// writable, one read-only, and they swap roles as a failover would), plus a port nobody listens on.
import { spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { createClient, createPool } from "./connection";
import { NoUsableHostError } from "./host-choice";

const root = "/usr/lib/postgresql";
const BIN = path.join(
  root,
  readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a))[0]!,
  "bin",
);
const asRoot = process.getuid?.() === 0;
const run = (cmd: string, args: string[]) => {
  const argv = asRoot ? ["runuser", "-u", "postgres", "--", path.join(BIN, cmd), ...args] : [path.join(BIN, cmd), ...args];
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8", timeout: 60_000 });
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr}`);
};
const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });

interface Cluster {
  port: number;
  setReadOnly(on: boolean): Promise<void>;
}
const dirs: string[] = [];
async function cluster(readOnly: boolean): Promise<Cluster> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-hostchoice-"));
  dirs.push(dir);
  if (asRoot) chownSync(dir, Number(spawnSync("id", ["-u", "postgres"]).stdout), Number(spawnSync("id", ["-g", "postgres"]).stdout));
  run("initdb", ["-D", `${dir}/data`, "-U", "postgres", "-A", "trust", "--no-sync"]);
  const port = await freePort();
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  run("pg_ctl", ["-D", `${dir}/data`, "-o", opts, "-l", `${dir}/log`, "-w", "start"]);
  const c: Cluster = {
    port,
    async setReadOnly(on) {
      const a = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`, options: "-c default_transaction_read_only=off" });
      await a.connect();
      await a.query(`alter system set default_transaction_read_only = ${on ? "on" : "off"}`);
      await a.query("select pg_reload_conf()");
      await a.end();
    },
  };
  // Through postgresql.auto.conf, not the command line (which a reload could not change).
  if (readOnly) await c.setReadOnly(true);
  return c;
}

let primary: Cluster, standby: Cluster, dead: number;
beforeAll(async () => {
  [primary, standby, dead] = await Promise.all([cluster(false), cluster(true), freePort()]);
}, 120_000);
afterAll(() => {
  for (const d of dirs) {
    spawnSync(asRoot ? "runuser" : path.join(BIN, "pg_ctl"), [...(asRoot ? ["-u", "postgres", "--", path.join(BIN, "pg_ctl")] : []), "-D", `${d}/data`, "-m", "immediate", "stop"]);
    rmSync(d, { recursive: true, force: true });
  }
});

const url = (ports: number[], tsa = "read-write") => `postgres://postgres@${ports.map((p) => `127.0.0.1:${p}`).join(",")}/postgres?target_session_attrs=${tsa}`;
const portOf = async (q: { query: pg.Pool["query"] }) => (await q.query<{ p: number }>("select inet_server_port() as p")).rows[0]!.p;

test("read-write: an unreachable host and a read-only host are skipped, the writable one is used (pool and single client)", async () => {
  const pool = createPool(url([dead, standby.port, primary.port]), { max: 2 });
  try {
    expect(await portOf(pool)).toBe(primary.port);
  } finally {
    await pool.end();
  }
  const c = createClient(url([standby.port, primary.port]));
  await c.connect();
  try {
    expect(await portOf(c)).toBe(primary.port);
  } finally {
    await c.end();
  }
});

test("any: the first host that answers, read-only or not", async () => {
  const pool = createPool(url([dead, standby.port, primary.port], "any"), { max: 1 });
  try {
    expect(await portOf(pool)).toBe(standby.port);
  } finally {
    await pool.end();
  }
});

test("no writable host: the statement fails with an error that says what each host answered", async () => {
  const pool = createPool(url([dead, standby.port]), { max: 1, connectTimeoutMs: 2000 });
  try {
    const e = (await pool.query("select 1").catch((x: unknown) => x)) as NoUsableHostError;
    expect(e).toBeInstanceOf(NoUsableHostError);
    expect(e.tried).toEqual([`127.0.0.1:${dead} ECONNREFUSED`, `127.0.0.1:${standby.port} read-only`]);
  } finally {
    await pool.end();
  }
});

test("a pooled connection to a host demoted under it is dropped after its read-only error, and the next connection finds the new primary", async () => {
  const pool = createPool(url([primary.port, standby.port]), { max: 1 });
  try {
    const before = (await pool.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid;
    expect(await portOf(pool)).toBe(primary.port);
    // The failover: the old primary turns read-only (its open session with it), the other writable.
    await primary.setReadOnly(true);
    await standby.setReadOnly(false);
    await new Promise((r) => setTimeout(r, 300)); // the reload reaches every backend
    const e = (await pool.query("create table t (i int)").catch((x: unknown) => x)) as { code?: string };
    expect(e.code).toBe("25006");
    const after = await pool.query<{ pid: number; p: number }>("select pg_backend_pid() as pid, inet_server_port() as p");
    expect(after.rows[0]!.p).toBe(standby.port);
    expect(after.rows[0]!.pid).not.toBe(before);
    expect(pool.totalCount).toBe(1);
  } finally {
    await pool.end();
    await primary.setReadOnly(false);
    await standby.setReadOnly(true);
  }
});
