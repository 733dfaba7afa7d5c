/**
 * The ceiling of this machine for the intent benchmark's shape: autocannon at 200 connections
 * through nginx (the same configuration as bench:system) to an Express app that does nothing but
 * parse the JSON body and answer, beside the same through nginx to Node's bare http server. Any
 * real endpoint is slower than these, so their p50 bounds what the intent path can reach here.
 * The third row is the intent's floor (intent-floor.ts): Express doing one Postgres insert and one
 * BullMQ add per request, on a database and a Redis key prefix of its own (both removed after).
 *
 *   pnpm exec tsx bench/system/http-ceiling.ts [--connections 200] [--seconds 10]
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { mkdtempSync, rmSync } from "node:fs";
import { parseArgs } from "node:util";
import express from "express";
import { createTestDb, createTestRedis } from "@svc/testing";
import { measureIntentFloor } from "./intent-floor";
import { autocannon } from "./load";
import { findNginx, MissingTool, startNginx } from "./nginx";

async function listen(server: http.Server): Promise<number> {
  server.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  return (server.address() as AddressInfo).port;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { connections: { type: "string", default: "200" }, seconds: { type: "string", default: "10" } } });
  const connections = Number(values.connections);
  const seconds = Number(values.seconds);
  findNginx();
  const app = express();
  app.use(express.json());
  app.post("/orchestrator/intent", (req, res) => void res.json({ status: "ok", echo: typeof req.body }));
  const bare = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}'));
  });
  const servers = [http.createServer(app), bare];
  const [expressPort, barePort] = [await listen(servers[0]!), await listen(servers[1]!)];
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-ceiling-"));
  // bench:system's intent body: the floor row is compared with its intents.
  const body = { intent: "create a vm called bench01", auto_execute: false };
  const rows: Record<string, unknown>[] = [];
  try {
    for (const [name, port] of [
      ["express, empty handler", expressPort],
      ["node http, empty handler", barePort],
    ] as const) {
      const nginx = await startNginx(path.join(dir, String(port)), port, port);
      try {
        const r = await autocannon(`http://127.0.0.1:${nginx.port}/orchestrator/intent`, body, connections, seconds);
        rows.push({ server: name, connections, rps: Math.round(r.rps), p50_ms: r.p50, p99_ms: r.p99, errors: r.errors + r.non2xx });
      } finally {
        await nginx.stop();
      }
    }
    const [tdb, redis] = [await createTestDb("ceiling"), createTestRedis("ceiling")];
    try {
      const r = await measureIntentFloor({ databaseUrl: tdb.url, redisUrl: redis.url, prefix: redis.prefix, dir: path.join(dir, "floor"), connections, seconds, body });
      rows.push({ server: "express, insert + BullMQ add (floor)", connections, rps: Math.round(r.rps), p50_ms: r.p50, p99_ms: r.p99, errors: r.errors + r.non2xx });
    } finally {
      await redis.cleanup();
      await tdb.drop();
    }
  } finally {
    for (const s of servers) s.close();
    rmSync(dir, { recursive: true, force: true });
  }
  console.table(rows);
  console.log(JSON.stringify({ cores: os.cpus().length, ceiling: rows }));
}

main().catch((e) => {
  console.error(e instanceof MissingTool ? `http-ceiling: ${e.message}` : e);
  process.exit(1);
});
