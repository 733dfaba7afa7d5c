import { Queue } from "bullmq";
import { createPool } from "@svc/db";
import { createRedis, QUEUE_NAMES } from "@svc/queue";
import { createTestDb, createTestRedis, waitFor, type TestDb, type TestRedis } from "@svc/testing";
import { startFloorServer } from "./intent-floor";

// The floor of bench:system's intent_floor_ratio: it must do the durable work it claims (a row and
// a job per intent) and nothing else. No times are checked here: bench:system prints them.
describe("the intent floor server of bench:system and http-ceiling", () => {
  let tdb: TestDb;
  let redis: TestRedis;
  beforeAll(async () => {
    tdb = await createTestDb("floor");
    redis = createTestRedis("floor");
  });
  afterAll(async () => {
    await redis.cleanup();
    await tdb.drop();
  });

  it("answers 202 after inserting the intent's row and adding its plan job, and drops its table when closed", async () => {
    const server = await startFloorServer({ databaseUrl: tdb.url, redisUrl: redis.url, prefix: redis.prefix });
    const post = (body: unknown) =>
      fetch(`http://127.0.0.1:${server.port}/orchestrator/intent`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const res = await post({ intent: "create a vm called bench01", auto_execute: false });
    expect(res.status).toBe(202);
    const { flow_id } = (await res.json()) as { flow_id: string };
    expect((await post({ intent: "" })).status).toBe(400);

    const client = createPool(tdb.url, { max: 1 });
    try {
      expect((await client.query("select id, text from bench_intent_floor")).rows).toEqual([{ id: flow_id, text: "create a vm called bench01" }]);
      const connection = createRedis(redis.url);
      const queue = new Queue(QUEUE_NAMES.intents, { connection, prefix: redis.prefix });
      expect((await queue.getJob(`plan|${flow_id}`))?.data).toEqual({ flowId: flow_id, action: "plan" });
      await queue.close();
      connection.disconnect();
      await server.close();
      expect((await client.query("select to_regclass('bench_intent_floor') as t")).rows[0]).toEqual({ t: null });
    } finally {
      await client.end();
    }
  });

  it("answers a request still in its insert when the load stops before it closes its queues (no failed add)", async () => {
    const server = await startFloorServer({ databaseUrl: tdb.url, redisUrl: redis.url, prefix: redis.prefix });
    const client = createPool(tdb.url, { max: 2 });
    const locker = await client.connect();
    try {
      // Hold the table so the request waits in its insert, then begin the close while it waits.
      await locker.query("begin; lock table bench_intent_floor in access exclusive mode");
      const answer = fetch(`http://127.0.0.1:${server.port}/orchestrator/intent`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ intent: "create a vm called late01" }),
      });
      await waitFor(async () => (await client.query("select 1 from pg_stat_activity where application_name = 'bench-intent-floor' and wait_event_type = 'Lock'")).rowCount, {
        what: "the request waiting in its insert",
      });
      const closing = server.close();
      await locker.query("commit");
      const res = await answer;
      expect(res.status).toBe(202);
      const { flow_id } = (await res.json()) as { flow_id: string };
      await closing;
      expect(server.failures()).toBeUndefined();
      const connection = createRedis(redis.url);
      const queue = new Queue(QUEUE_NAMES.intents, { connection, prefix: redis.prefix });
      expect((await queue.getJob(`plan|${flow_id}`))?.data).toEqual({ flowId: flow_id, action: "plan" });
      await queue.close();
      connection.disconnect();
    } finally {
      locker.release();
      await client.end();
    }
  });
});
