// A Redis primary, a replica and three sentinels as real redis-server processes on free loopback
// ports, for the failover tests and `pnpm chaos --ha`. Everything lives in a temporary directory
// that stop() removes.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import IORedis from "ioredis";
import { freePort, waitFor } from "@svc/testing";

export const MASTER_NAME = "svcprimary";

export interface RedisProc {
  port: number;
  alive(): boolean;
  kill9(): Promise<void>;
}

export interface SentinelSet {
  /** redis+sentinel://127.0.0.1:a,127.0.0.1:b,127.0.0.1:c/svcprimary */
  url: string;
  sentinelPorts: number[];
  primary: RedisProc;
  replica: RedisProc;
  /** The port the sentinels currently name as primary. */
  currentPrimaryPort(): Promise<number>;
  /** Waits until the sentinels name a primary other than `port`; resolves with the new port. */
  waitForPromotion(fromPort: number, timeoutMs?: number): Promise<number>;
  stop(): Promise<void>;
}

function redisProc(port: number, args: string[]): RedisProc {
  const child: ChildProcess = spawn("redis-server", args, { stdio: "ignore" });
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    port,
    alive,
    async kill9() {
      if (!alive()) return;
      const done = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await done;
    },
  };
}

async function answers(port: number): Promise<boolean> {
  const r = new IORedis({ host: "127.0.0.1", port, maxRetriesPerRequest: 0, lazyConnect: true, retryStrategy: () => null });
  r.on("error", () => undefined);
  try {
    await r.connect();
    return (await r.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

async function sentinelCommand(port: number, ...args: string[]): Promise<unknown> {
  const r = new IORedis({ host: "127.0.0.1", port, maxRetriesPerRequest: 0, lazyConnect: true, retryStrategy: () => null });
  r.on("error", () => undefined);
  try {
    await r.connect();
    return await r.call("SENTINEL", ...args);
  } finally {
    r.disconnect();
  }
}

/** `downAfterMs`: how long the primary must be silent before the sentinels call it down. */
export async function startSentinelSet(o: { downAfterMs?: number; redisArgs?: string[] } = {}): Promise<SentinelSet> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-sentinel-"));
  const common = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0", ...(o.redisArgs ?? [])];
  const procs: RedisProc[] = [];
  try {
    const pPort = await freePort();
    const primary = redisProc(pPort, ["--port", String(pPort), "--dir", dir, ...common]);
    procs.push(primary);
    await waitFor(() => answers(pPort), { timeoutMs: 10_000, what: "redis primary" });
    const rPort = await freePort();
    const replica = redisProc(rPort, ["--port", String(rPort), "--dir", dir, "--replicaof", "127.0.0.1", String(pPort), ...common]);
    procs.push(replica);
    await waitFor(() => answers(rPort), { timeoutMs: 10_000, what: "redis replica" });

    const sentinelPorts: number[] = [];
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const conf = path.join(dir, `sentinel-${i}.conf`);
      // Sentinel rewrites its own file (it records the replicas and the other sentinels there).
      writeFileSync(
        conf,
        [
          `port ${port}`,
          "bind 127.0.0.1",
          `dir ${dir}`,
          `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${pPort} 2`,
          `sentinel down-after-milliseconds ${MASTER_NAME} ${o.downAfterMs ?? 1000}`,
          `sentinel failover-timeout ${MASTER_NAME} 10000`,
          `sentinel parallel-syncs ${MASTER_NAME} 1`,
          "",
        ].join("\n"),
      );
      procs.push(redisProc(port, [conf, "--sentinel"]));
      sentinelPorts.push(port);
    }
    for (const port of sentinelPorts) await waitFor(() => answers(port), { timeoutMs: 10_000, what: "sentinel" });
    const currentPrimaryPort = async () => {
      for (const port of sentinelPorts) {
        const a = (await sentinelCommand(port, "get-master-addr-by-name", MASTER_NAME).catch(() => undefined)) as string[] | null | undefined;
        if (a?.[1]) return Number(a[1]);
      }
      throw new Error("no sentinel answered");
    };
    // The sentinels must have found the replica and each other before a failover can happen
    // (replicas from the primary's INFO every 10 s, peers from hello messages every 2 s: slow on a
    // loaded machine). A timeout says what each sentinel knew.
    let known = "";
    await waitFor(
      async () => {
        const counts = await Promise.all(
          sentinelPorts.map(async (port) => {
            const replicas = (await sentinelCommand(port, "replicas", MASTER_NAME).catch(() => [])) as unknown[];
            const peers = (await sentinelCommand(port, "sentinels", MASTER_NAME).catch(() => [])) as unknown[];
            return { port, replicas: replicas.length, peers: peers.length };
          }),
        );
        known = JSON.stringify(counts);
        return counts.every((c) => c.replicas >= 1 && c.peers >= 2);
      },
      { timeoutMs: 60_000, intervalMs: 200, what: "sentinels know the replica and each other" },
    ).catch((e: Error) => {
      throw new Error(`${e.message}; each sentinel knew ${known}`);
    });
    return {
      url: `redis+sentinel://${sentinelPorts.map((p) => `127.0.0.1:${p}`).join(",")}/${MASTER_NAME}`,
      sentinelPorts,
      primary,
      replica,
      currentPrimaryPort,
      async waitForPromotion(fromPort, timeoutMs = 30_000) {
        return waitFor(
          async () => {
            const p = await currentPrimaryPort().catch(() => fromPort);
            return p !== fromPort && (await answers(p)) ? p : undefined;
          },
          { timeoutMs, intervalMs: 100, what: "a replica promoted by the sentinels" },
        );
      },
      async stop() {
        for (const p of procs) await p.kill9();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    for (const p of procs) await p.kill9();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
