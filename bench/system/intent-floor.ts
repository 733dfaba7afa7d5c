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
import { createQueues, INTENT_JOB_OPTIONS, pingRedis } from "@svc/queue";
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
export async function startFloorServer(
  o: Pick<FloorOptions, "databaseUrl" | "redisUrl" | "prefix">,
): Promise<{ port: number; failures(): { count: number; first: string } | undefined; close(): Promise<void> }> {
  const pool = createPool(o.databaseUrl, { applicationName: "bench-intent-floor" });
  await pool.query(`create table if not exists ${TABLE} (id uuid primary key, text text not null, created_at timestamptz not null default now())`);
  const queues = createQueues({ url: o.redisUrl, prefix: o.prefix });
  // The producer connection has no offline queue: adds sent before it is ready would fail.
  await pingRedis(queues.connection);
  // Requests still in their insert or add when the load stops; close() waits for them before closing the queues.
  const inFlight = new Set<Promise<void>>();
  let failures = 0;
  let firstFailure = "";
  const app = express();
  app.use(express.json({ limit: "1mb" }));
  app.post("/orchestrator/intent", (req, res) => {
    const handled = accept(req.body, res).finally(() => inFlight.delete(handled));
    inFlight.add(handled);
  });
  const accept = async (body: unknown, res: express.Response) => {
    try {
      const text = (body as { intent?: unknown } | undefined)?.intent;
      if (typeof text !== "string" || !text) return void res.status(400).json({ title: "intent: a non-empty string" });
      const id = randomUUID();
      // The row first: the job names it, and a job whose row is not yet there would find nothing.
      await pool.query({ name: "floor-insert", text: `insert into ${TABLE} (id, text) values ($1, $2)`, values: [id, text] });
      // The intent client's options: a job id per flow (one plan each), kept an hour after completion.
      await queues.intents.add("plan", { flowId: id, action: "plan" }, { ...INTENT_JOB_OPTIONS, jobId: `plan|${id}` });
      res.status(202).json({ flow_id: id, status: "pending" });
    } catch (e) {
      // Counted (autocannon counts the 500s too) and said once at close, not a stack trace per request.
      if (!failures++) firstFailure = String(e);
      if (!res.headersSent) res.status(500).json({ type: "about:blank", title: "Internal Server Error", status: 500, detail: String(e) });
    }
  };
  const server = http.createServer(app);
  server.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  return {
    port: (server.address() as AddressInfo).port,
    failures: () => (failures ? { count: failures, first: firstFailure } : undefined),
    async close() {
      const closed = new Promise((r) => server.close(r));
      await Promise.all([...inFlight]);
      server.closeAllConnections();
      await closed;
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
      const failed = server.failures();
      if (failed) process.stderr.write(`intent floor: ${failed.count} requests failed (first: ${failed.first})\n`);
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
