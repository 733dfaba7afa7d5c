// A pg_auto_failover formation as real processes on free loopback ports, for the Postgres failover
// test and `pnpm chaos --ha`: a monitor and two data nodes (a primary and a synchronous standby),
// each run by its own `pg_autoctl` keeper in its own process group, everything in a temporary
// directory that stop() removes. Killing a node kills its whole group (keeper, postmaster, backends):
// the machine is gone. (Killing only the postmaster would not fail over: the keeper restarts it.)
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { accessSync, chownSync, constants, createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createClient } from "@svc/db";
import { freePort, waitFor } from "@svc/testing";

export interface PgNode {
  name: string;
  port: number;
  alive(): boolean;
  /** kill -9 of the node's process group: keeper, postmaster and backends at once. */
  kill9(): Promise<void>;
}

export interface PgFormation {
  /** libpq's multi-host URL: postgres://postgres@127.0.0.1:p1,127.0.0.1:p2/<db>?target_session_attrs=read-write&sslmode=disable */
  url: string;
  /** What `pg_autoctl show uri --formation default` printed (the same hosts). */
  shownUri: string;
  nodes: [PgNode, PgNode];
  /** The node whose sessions accept writes now, if any. */
  writableNode(): Promise<PgNode | undefined>;
  /** Waits until a node other than `from` accepts writes; resolves with it. */
  waitForPromotion(from: PgNode, timeoutMs?: number): Promise<PgNode>;
  /** Name, reported and assigned state of each node, from the monitor. */
  states(): Promise<string>;
  stop(): Promise<void>;
}

const PG_ROOT = "/usr/lib/postgresql";

/** A prerequisite of the failover drills that is not installed; the message says how to get it. */
export class MissingPgAutoctl extends Error {
  override name = "MissingPgAutoctl";
}

/**
 * Where `pg_autoctl` is, among the directories the keepers' PATH holds (the server's bin directory
 * first, then /usr/bin and /bin): checked before anything is started, so a machine without it is told
 * in one line what to install instead of waiting for a monitor that cannot start.
 */
export function findPgAutoctl(dirs: string[] = [...serverBinDirs(), "/usr/bin", "/bin"]): string {
  for (const dir of dirs) {
    const file = path.join(dir, "pg_autoctl");
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not in this directory: try the next one
    }
  }
  throw new MissingPgAutoctl(
    "pg_autoctl is not installed: the Postgres failover drill runs a pg_auto_failover formation.\n" +
      "  Install it: sudo apt-get install -y postgresql-15-auto-failover   (the package for your PostgreSQL major version)\n" +
      "  scripts/test.sh installs it; scripts/development/run-dev.sh does not.",
  );
}

function serverBinDirs(): string[] {
  if (!existsSync(PG_ROOT)) return [];
  return readdirSync(PG_ROOT).map((v) => path.join(PG_ROOT, v, "bin"));
}
const bin = () => {
  const v = readdirSync(PG_ROOT).filter((d) => existsSync(path.join(PG_ROOT, d, "bin", "pg_ctl")))[0];
  if (!v) throw new Error("no PostgreSQL server binaries under /usr/lib/postgresql");
  return path.join(PG_ROOT, v, "bin");
};
const asRoot = process.getuid?.() === 0;
// initdb refuses root: as root, the formation belongs to the postgres user.
const argv = (env: Record<string, string>, args: string[]) => {
  const cmd = ["env", ...Object.entries(env).map(([k, v]) => `${k}=${v}`), "pg_autoctl", ...args];
  return asRoot ? ["runuser", "-u", "postgres", "--", ...cmd] : cmd;
};

async function query<T>(port: number, db: string, sql: string): Promise<T[]> {
  const c = createClient(`postgres://postgres@127.0.0.1:${port}/${db}?sslmode=disable`, { connectTimeoutMs: 2000 });
  c.on("error", () => undefined);
  try {
    await c.connect();
    return (await c.query(sql)).rows as T[];
  } finally {
    await c.end().catch(() => undefined);
  }
}
const writable = async (port: number, db: string) =>
  (await query<{ ro: string }>(port, db, "select current_setting('transaction_read_only') as ro").catch(() => []))[0]?.ro === "off";

/** `dbname`: the database the data nodes create (the drill's own). */
export async function startPgAutoFailover(o: { dbname: string; say?: (s: string) => void }): Promise<PgFormation> {
  const say = o.say ?? (() => undefined);
  findPgAutoctl();
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-pgaf-"));
  if (asRoot) chownSync(dir, Number(spawnSync("id", ["-u", "postgres"]).stdout), Number(spawnSync("id", ["-g", "postgres"]).stdout));
  const BIN = bin();
  // pg_autoctl keeps its configuration and state under XDG directories: inside ours.
  const env = { XDG_CONFIG_HOME: `${dir}/config`, XDG_DATA_HOME: `${dir}/share`, XDG_RUNTIME_DIR: `${dir}/run`, PG_CONFIG: `${BIN}/pg_config`, PATH: `${BIN}:/usr/bin:/bin` };
  const groups: { child: ChildProcess; pgdata: string }[] = [];
  const keeper = (name: string, args: string[]) => {
    const log = createWriteStream(`${dir}/${name}.log`);
    const [cmd, ...rest] = argv(env, args);
    const child = spawn(cmd!, rest, { cwd: dir, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.pipe(log);
    child.stderr.pipe(log);
    groups.push({ child, pgdata: `${dir}/${name}` });
    return child;
  };
  const alive = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;
  const killed = new Set<ChildProcess>();
  const killGroup = async (g: { child: ChildProcess; pgdata: string }) => {
    // Once only: afterwards the pids in postmaster.pid may belong to someone else.
    if (killed.has(g.child)) return;
    killed.add(g.child);
    // postmaster.pid: line 1 the postmaster, line 7 its System V segment (which outlives a kill -9).
    const pidFile = (() => {
      try {
        return readFileSync(`${g.pgdata}/postmaster.pid`, "utf8").split("\n");
      } catch {
        return [];
      }
    })();
    const shmid = pidFile[6]?.trim().split(/\s+/)[1];
    // Postgres's children each run in a session of their own (setsid): not in the keeper's group.
    // Some (the logger, the monitor's health-check worker) would outlive the postmaster: list them first.
    const cmdline = (pid: string) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8");
      } catch {
        return "";
      }
    };
    const pm = pidFile[0] && cmdline(pidFile[0].trim()).includes(g.pgdata) ? pidFile[0].trim() : undefined;
    const children = pm ? spawnSync("pgrep", ["-P", pm], { encoding: "utf8" }).stdout.split("\n").filter(Boolean).map(Number) : [];
    if (alive(g.child)) {
      const exited = new Promise((r) => g.child.once("exit", r));
      process.kill(-g.child.pid!, "SIGKILL");
      await exited;
    }
    const gone = (pid: number) => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    };
    for (const pid of [...(pm ? [Number(pm)] : []), ...children]) if (!gone(pid)) process.kill(pid, "SIGKILL");
    await waitFor(() => spawnSync("pgrep", ["-g", String(g.child.pid)]).status !== 0 && children.every(gone), {
      timeoutMs: 10_000,
      intervalMs: 50,
      what: "node processes gone",
    }).catch(() => undefined);
    if (shmid) spawnSync("ipcrm", ["-m", shmid]);
  };

  const common = ["--pgctl", `${BIN}/pg_ctl`, "--hostname", "127.0.0.1", "--auth", "trust", "--no-ssl"];
  try {
    const mPort = await freePort();
    keeper("monitor", ["create", "monitor", "--pgdata", `${dir}/monitor`, "--pgport", String(mPort), ...common, "--run"]);
    await waitFor(
      () =>
        query(mPort, "pg_auto_failover", "select 1").then(
          () => true,
          () => false,
        ),
      { timeoutMs: 60_000, intervalMs: 200, what: "pg_auto_failover monitor" },
    );
    // Faster detection than the defaults (5 s checks, 20 s unhealthy, 30 s demote timeout): see docs/deployment.md.
    for (const [k, v] of Object.entries({
      health_check_period: 1000,
      health_check_timeout: 1000,
      health_check_max_retries: 1,
      health_check_retry_delay: 500,
      node_considered_unhealthy_timeout: 2000,
      primary_demote_timeout: 5000,
    }))
      await query(mPort, "pg_auto_failover", `alter system set pgautofailover.${k} = ${v}`);
    await query(mPort, "pg_auto_failover", "select pg_reload_conf()");
    const monitorUrl = `postgres://autoctl_node@127.0.0.1:${mPort}/pg_auto_failover?sslmode=disable`;
    const states = async () =>
      (
        await query<{ s: string }>(
          mPort,
          "pg_auto_failover",
          "select string_agg(nodename || ':' || nodeport || ' ' || reportedstate || '/' || goalstate, ', ' order by nodeid) as s from pgautofailover.node",
        )
      )[0]?.s ?? "";

    const nodes: PgNode[] = [];
    for (const name of ["node1", "node2"]) {
      const port = await freePort();
      const child = keeper(name, [
        "create",
        "postgres",
        "--pgdata",
        `${dir}/${name}`,
        "--pgport",
        String(port),
        "--listen",
        "127.0.0.1",
        "--name",
        name,
        "--dbname",
        o.dbname,
        "--username",
        "postgres",
        "--monitor",
        monitorUrl,
        ...common,
        "--run",
      ]);
      const g = groups[groups.length - 1]!;
      nodes.push({ name, port, alive: () => alive(child), kill9: () => killGroup(g) });
      if (name === "node1") await waitFor(() => writable(port, o.dbname), { timeoutMs: 90_000, intervalMs: 250, what: "node1 primary" });
    }
    // pg_basebackup waits for a spread checkpoint (minutes on an idle server): ask for one now.
    await waitFor(
      async () => {
        await query(nodes[0]!.port, o.dbname, "checkpoint").catch(() => undefined);
        const s = await states();
        const sync = (await query<{ s: string }>(nodes[0]!.port, o.dbname, "select current_setting('synchronous_standby_names') as s").catch(() => []))[0]?.s;
        return /node1:\d+ primary\/primary/.test(s) && /node2:\d+ secondary\/secondary/.test(s) && !!sync;
      },
      { timeoutMs: 180_000, intervalMs: 1000, what: "node2 a synchronous standby of node1" },
    );
    const [showCmd, ...showArgs] = argv(env, ["show", "uri", "--formation", "default", "--pgdata", `${dir}/monitor`]);
    const shown = spawnSync(showCmd!, showArgs, { encoding: "utf8" }).stdout.trim();
    say(`pg_auto_failover: monitor ${mPort}, ${await states()}`);
    const writableNode = async () => {
      for (const n of nodes) if (n.alive() && (await writable(n.port, o.dbname))) return n;
      return undefined;
    };
    return {
      url: `postgres://postgres@${nodes.map((n) => `127.0.0.1:${n.port}`).join(",")}/${o.dbname}?target_session_attrs=read-write&sslmode=disable`,
      shownUri: shown,
      nodes: nodes as [PgNode, PgNode],
      writableNode,
      async waitForPromotion(from, timeoutMs = 120_000) {
        return waitFor(
          async () => {
            const n = await writableNode();
            return n && n !== from ? n : undefined;
          },
          { timeoutMs, intervalMs: 100, what: "the standby promoted" },
        );
      },
      states,
      async stop() {
        for (const g of [...groups].reverse()) await killGroup(g);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    for (const g of [...groups].reverse()) await killGroup(g);
    if (process.env.SVC_HA_KEEP_LOGS) spawnSync("cp", ["-r", dir, process.env.SVC_HA_KEEP_LOGS]);
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
