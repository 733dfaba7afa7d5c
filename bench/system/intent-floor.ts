/**
 * The intent endpoint's floor: an Express handler that does only what an intent must make durable
 * before it is answered, one Postgres insert (the intent's row) and then one BullMQ add (the job
 * that names the row), and answers 202. Measured like the intents of bench:system: autocannon with
 * the same body and connections through the same nginx configuration.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { createPool } from "@svc/db";
import { createQueues } from "@svc/queue";
import { autocannon, type CannonResult } from "./load";
import { startNginx } from "./nginx";

/** The columns an intent row minimally needs: its id, its text, when it came. */
const TABLE = "bench_intent_floor";

export interface FloorOptions {
  /** A database of the bench's own (the table is made in it and dropped after). */
  databaseUrl: string;
  redisUrl: string;
  /** A Redis key prefix of the floor's own; its keys are left to the caller's cleanup of that prefix. */
  prefix: string;
  /** nginx's files go here. */
  dir: string;
  connections: number;
  seconds: number;
  body: unknown;
}

/** Start the floor server on a spare loopback port: the same pool size and producer queue as the services. */
export async function startFloorServer(o: Pick<FloorOptions, "databaseUrl" | "redisUrl" | "prefix">): Promise<{ port: number; close(): Promise<void> }> {
  const pool = createPool(o.databaseUrl, { applicationName: "bench-intent-floor" });
  await pool.query(`create table if not exists ${TABLE} (id uuid primary key, text text not null, created_at timestamptz not null default now())`);
  const queues = createQueues({ url: o.redisUrl, prefix: o.prefix });
  const app = express();
  app.use(express.json({ limit: "1mb" }));
  app.post("/orchestrator/intent", async (req, res, next) => {
    try {
      const text = (req.body as { intent?: unknown }).intent;
      if (typeof text !== "string" || !text) return void res.status(400).json({ title: "intent: a non-empty string" });
      const id = randomUUID();
      // The row first: the job names it, and a job whose row is not yet there would find nothing.
      await pool.query({ name: "floor-insert", text: `insert into ${TABLE} (id, text) values ($1, $2)`, values: [id, text] });
      // The intent client's options: a job id per flow (one plan each), kept an hour after completion.
      await queues.intents.add(
        "plan",
        { flowId: id, action: "plan" },
        { jobId: `plan|${id}`, attempts: 5, backoff: { type: "exponential", delay: 500 }, removeOnComplete: { age: 3600 }, removeOnFail: { age: 86400 } },
      );
      res.status(202).json({ flow_id: id, status: "pending" });
    } catch (e) {
      next(e);
    }
  });
  const server = http.createServer(app);
  server.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await queues.close();
      await pool.query(`drop table if exists ${TABLE}`).catch(() => undefined);
      await pool.end();
    },
  };
}

/** autocannon through nginx to the floor server; the rows written are counted against the 2xx answers. */
export async function measureIntentFloor(o: FloorOptions): Promise<CannonResult & { rows: number }> {
  const server = await startFloorServer(o);
  try {
    const nginx = await startNginx(o.dir, server.port, server.port);
    try {
      const r = await autocannon(`http://127.0.0.1:${nginx.port}/orchestrator/intent`, o.body, o.connections, o.seconds);
      const pool = createPool(o.databaseUrl, { max: 1, applicationName: "bench-intent-floor-count" });
      const rows = Number((await pool.query<{ n: string }>(`select count(*) as n from ${TABLE}`)).rows[0]!.n);
      await pool.end();
      return { ...r, rows };
    } finally {
      await nginx.stop();
    }
  } finally {
    await server.close();
  }
}
