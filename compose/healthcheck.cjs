// Container healthcheck, run by the compose file:
//   http URL            healthy when the URL answers with a status below 500
//   tcp PORT            healthy when 127.0.0.1:PORT accepts a connection
//   heartbeat COMPONENT healthy when this container's COMPONENT beat in the last 30 s (Postgres)
// Exit 0 healthy, 1 not. Prints one line; never prints the database URL.
"use strict";
const http = require("node:http");
const net = require("node:net");
const os = require("node:os");
const path = require("node:path");

const TIMEOUT_MS = 5000;
const [kind, arg] = process.argv.slice(2);
const done = (ok, msg) => {
  process.stdout.write(`${ok ? "healthy" : "unhealthy"}: ${msg}\n`);
  process.exit(ok ? 0 : 1);
};
setTimeout(() => done(false, `no answer within ${TIMEOUT_MS} ms`), TIMEOUT_MS).unref();

function checkHttp(url) {
  const req = http.get(url, { timeout: TIMEOUT_MS }, (res) => {
    res.resume();
    done(res.statusCode < 500, `HTTP ${res.statusCode}`);
  });
  req.on("error", (e) => done(false, e.message));
}

function checkTcp(port) {
  const s = net.connect(Number(port), "127.0.0.1");
  s.on("connect", () => { s.destroy(); done(true, `port ${port} open`); });
  s.on("error", (e) => done(false, e.message));
}

async function checkHeartbeat(component) {
  // pg is a dependency of @svc/db (pnpm does not hoist it to the root).
  const { Client } = require(require.resolve("pg", { paths: [path.join(__dirname, "..", "packages", "db")] }));
  const client = new Client({ connectionString: process.env.DATABASE_URL, connectionTimeoutMillis: TIMEOUT_MS });
  try {
    await client.connect();
    const r = await client.query(
      "select 1 from component_heartbeat where component = $1 and hostname = $2 and last_seen > now() - interval '30 seconds' limit 1",
      [component, os.hostname()],
    );
    done(r.rowCount > 0, r.rowCount > 0 ? `${component} beating` : `no ${component} heartbeat from ${os.hostname()} in 30 s`);
  } catch (e) {
    done(false, e instanceof Error ? e.message : String(e));
  } finally {
    client.end().catch(() => {});
  }
}

if (kind === "http" && arg) checkHttp(arg);
else if (kind === "tcp" && arg) checkTcp(arg);
else if (kind === "heartbeat" && arg) void checkHeartbeat(arg);
else done(false, "usage: healthcheck.cjs http URL | tcp PORT | heartbeat COMPONENT");
