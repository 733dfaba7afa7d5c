import http from "node:http";
import { createTestDb, createTestRedis, waitFor, type TestDb, type TestRedis } from "@svc/testing";
import { AUTH, startFaultStack, type FaultStack } from "./fault-stack";

const GRACE_MS = 3000;
const FLOW_ID = "flow-00000000f10a";

let tdb: TestDb;
let redis: TestRedis;
let stack: FaultStack;
beforeAll(async () => {
  tdb = await createTestDb("streamstop");
  redis = createTestRedis("streamstop");
  stack = await startFaultStack({
    label: "streamstop",
    databaseUrl: tdb.url,
    redisUrl: redis.url,
    dags: { live: "dag_id: live\ntasks:\n  - {task_id: a, operator: noop}\n" },
    env: { SVC_MAX_OPEN_STREAMS: "1", SVC_STOP_GRACE_MS: String(GRACE_MS) },
  });
  // A flow waiting for approval: its event stream stays open.
  await stack.db
    .insertInto("flow")
    .values({
      flow_id: FLOW_ID,
      execution_id: "exec-f10a",
      intent: "stream test",
      status: "awaiting_approval",
      params: "{}",
      router: "{}",
      phases_completed: "[]",
      phases_skipped: "[]",
      next_steps: "[]",
      missing_params: "[]",
      auto_approve: false,
      auto_execute: false,
      dag_id: null,
      run_id: null,
      summary: null,
      error_message: null,
      approval: null,
    })
    .execute();
  await stack.start("web-ui", "web-ui");
  await stack.start("assistant-api", "assistant-api");
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await redis?.cleanup();
  await tdb?.drop();
});

interface Stream {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: () => string;
  /** Resolves when the server ends the stream (or the connection closes). */
  ended: Promise<void>;
  close(): void;
}

/** Open an event stream; resolves once the answer's headers are in. */
function openStream(url: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { ...AUTH, Accept: "text/event-stream" } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (body += d));
      const ended = new Promise<void>((r) => res.once("close", () => r()));
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body: () => body, ended, close: () => req.destroy() });
    });
    req.on("error", reject);
  });
}

const streams = () => ({
  "web-ui": `${stack.webUiUrl}/home/events`,
  "assistant-api": `${stack.assistantUrl}/orchestrator/flows/${FLOW_ID}/events`,
});

test.each(["web-ui", "assistant-api"] as const)(
  "%s: past SVC_MAX_OPEN_STREAMS a new event stream gets 503 problem JSON with Retry-After; a closed one frees its slot",
  async (service) => {
    const url = streams()[service];
    const first = await openStream(url);
    expect(first.status).toBe(200);
    expect(first.headers["content-type"]).toContain("text/event-stream");

    const refused = await openStream(url);
    await refused.ended;
    expect(refused.status).toBe(503);
    expect(refused.headers["retry-after"]).toMatch(/^\d+$/);
    expect(refused.headers["content-type"]).toContain("application/problem+json");
    expect(JSON.parse(refused.body())).toMatchObject({
      status: 503,
      title: "Service Unavailable",
      type: expect.any(String),
      detail: expect.stringMatching(/Too many open event streams/),
    });

    first.close();
    await first.ended;
    const again = await waitFor(
      async () => {
        const s = await openStream(url);
        if (s.status === 200) return s;
        s.close();
        return undefined;
      },
      { timeoutMs: 5000, what: "a stream admitted again" },
    );
    again.close();
    await again.ended;
  },
);

test.each(["web-ui", "assistant-api"] as const)("%s: SIGTERM with an event stream attached ends the stream and exits within the stop grace + 5 s", async (service) => {
  const stream = await openStream(streams()[service]);
  expect(stream.status).toBe(200);
  const t0 = Date.now();
  const exit = stack.terminate(service);
  await stream.ended;
  const streamEndedS = (Date.now() - t0) / 1000;
  const exitS = await exit;
  // Streams end at once (not after a grace), and the process is gone well within grace + 5 s.
  expect(streamEndedS).toBeLessThan(1);
  expect(exitS).toBeLessThan(GRACE_MS / 1000 + 5);
  const out = stack.output(service);
  expect(out).toMatch(/"msg":"shutting down"/);
  expect(out).not.toMatch(/did not finish within the stop grace/);
});
