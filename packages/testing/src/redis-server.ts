import { spawn, type ChildProcess } from "node:child_process";
import IORedis from "ioredis";
import { freePort, waitFor } from "./ports";

export interface OwnRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Start a private redis-server without persistence (for tests that must FLUSHALL or kill Redis)
 * on a spare port, or on `port` (to come back empty where a killed one was).
 */
export async function startRedisServer(opts: { port?: number } = {}): Promise<OwnRedis> {
  const port = opts.port ?? (await freePort());
  const child: ChildProcess = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  const url = `redis://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      const r = new IORedis(url, { maxRetriesPerRequest: 0, lazyConnect: true, retryStrategy: () => null });
      r.on("error", () => undefined);
      try {
        await r.connect();
        return (await r.ping()) === "PONG";
      } finally {
        r.disconnect();
      }
    },
    { timeoutMs: 10000, what: "redis-server" },
  );
  return {
    url,
    port,
    async stop() {
      if (child.exitCode === null) {
        const done = new Promise((r) => child.once("exit", r));
        child.kill("SIGKILL");
        await done;
      }
    },
  };
}
