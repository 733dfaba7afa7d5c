import { UnrecoverableError, Worker, type Job } from "bullmq";
import type { FlowRow } from "@svc/db";
import { silentLogger } from "@svc/logger";
import { createQueues, createRedis, QUEUE_NAMES, type Queues } from "@svc/queue";
import { createTestRedis, startTcpHold, type TestRedis } from "@svc/testing";
import { createIntentClient, type IntentClient } from "../src/intent-client";

// The intent client against real Redis and a BullMQ worker standing in for the orchestrator: a new
// flow's plan jobs added together in one addBulk, each answered from the queue's event stream.
let redis: TestRedis;
let queues: Queues;
let client: IntentClient;
let worker: Worker;
let workerConnection: ReturnType<typeof createRedis>;
const seen: { name: string; data: Record<string, unknown> }[] = [];

const flowRow = (flowId: string): FlowRow => ({ flow_id: flowId, status: "pending", created_at: new Date(), updated_at: new Date() }) as unknown as FlowRow;

beforeAll(async () => {
  redis = createTestRedis("intentclient");
  queues = createQueues({ url: redis.url, prefix: redis.prefix });
  workerConnection = createRedis(redis.url);
  worker = new Worker(
    QUEUE_NAMES.intents,
    async (job: Job) => {
      seen.push({ name: job.name, data: job.data as Record<string, unknown> });
      const { flowId, flow } = job.data as { flowId: string; flow?: FlowRow };
      if (flowId.endsWith("bad")) throw new UnrecoverableError("cannot plan this one");
      return { flowId, status: "awaiting_approval", flow: flow ? { ...flow, status: "awaiting_approval" } : undefined };
    },
    { connection: workerConnection, prefix: redis.prefix, concurrency: 8 },
  );
  // Created right before the first submit: a result that comes back at once is not missed.
  client = createIntentClient({ queue: queues.intents, redisUrl: redis.url, prefix: redis.prefix, logger: silentLogger() });
});

afterAll(async () => {
  await client?.close();
  await worker?.close();
  workerConnection?.disconnect();
  await queues?.close();
  await redis?.cleanup();
});

test("new flows' plan jobs submitted together are added in one addBulk, and each caller gets its own flow's result", async () => {
  const addBulk = jest.spyOn(queues.intents, "addBulk");
  const add = jest.spyOn(queues.intents, "add");
  const ids = ["flow-00000000000a", "flow-00000000000b", "flow-00000000000c", "flow-00000000000d"];
  const out = await Promise.all(ids.map((id) => client.submit(id, "plan", 20_000, undefined, flowRow(id))));
  expect(add).not.toHaveBeenCalled();
  expect(addBulk).toHaveBeenCalledTimes(1);
  expect(addBulk.mock.calls[0]![0].map((j) => j.opts?.jobId)).toEqual(ids.map((id) => `plan|${id}`));
  expect(out.map((o) => o.queued)).toEqual([true, true, true, true]);
  expect(out.map((o) => o.result?.flowId)).toEqual(ids);
  // The result's flow has its dates as dates again, and is the job's own copy.
  for (const [i, o] of out.entries()) {
    expect(o.result?.flow).toMatchObject({ flow_id: ids[i], status: "awaiting_approval" });
    expect(o.result?.flow?.created_at).toBeInstanceOf(Date);
  }
  expect(seen.filter((s) => ids.includes(String(s.data.flowId))).map((s) => s.data.flow)).toHaveLength(4);
  addBulk.mockRestore();
  add.mockRestore();
});

test("a plan job that fails settles its caller without a result as soon as it fails, not at the end of the wait", async () => {
  // A wait far beyond the test's timeout: only the failure's event can end it in time.
  const out = await client.submit("flow-000000000bad", "plan", 600_000, undefined, flowRow("flow-000000000bad"));
  expect(out).toEqual({ queued: true });
}, 20_000);

test("with no wait the job is added and the call returns at once; the job is still planned", async () => {
  const id = "flow-00000000000e";
  expect(await client.submit(id, "plan", 0, undefined, flowRow(id))).toEqual({ queued: true });
  expect(await queues.intents.getJob(`plan|${id}`)).toBeDefined();
  for (let i = 0; i < 100 && !(await queues.intents.getJob(`plan|${id}`))?.finishedOn; i++) await new Promise((r) => setTimeout(r, 50));
  expect((await queues.intents.getJob(`plan|${id}`))?.returnvalue).toMatchObject({ flowId: id });
});

test("a job that may have finished before (an approval asked twice) still gets its result through BullMQ's own wait", async () => {
  const id = "flow-00000000000f";
  const first = await client.submit(id, "approve", 20_000);
  expect(first.result?.flowId).toBe(id);
  // Same job id: BullMQ keeps the finished job, so no new event comes; the wait finds it finished.
  const again = await client.submit(id, "approve", 20_000);
  expect(again.result?.flowId).toBe(id);
  expect(seen.filter((s) => s.name === "approve" && s.data.flowId === id)).toHaveLength(1);
}, 20_000);

test("a new flow's job is added only once the event reader has its starting point, so a result that comes back at once is not missed", async () => {
  // This client's event reader reaches Redis through a forward that passes nothing yet.
  const hold = await startTcpHold(Number(new URL(redis.url).port || 6379));
  hold.hold();
  const late = createIntentClient({ queue: queues.intents, redisUrl: `redis://127.0.0.1:${hold.port}`, prefix: redis.prefix, logger: silentLogger() });
  try {
    const id = "flow-000000000010";
    const answer = late.submit(id, "plan", 20_000, undefined, flowRow(id));
    await new Promise((r) => setTimeout(r, 300));
    expect(await queues.intents.getJob(`plan|${id}`)).toBeUndefined();
    hold.release();
    const out = await answer;
    expect(out.result?.flowId).toBe(id);
  } finally {
    await late.close();
    await hold.close();
  }
}, 20_000);
