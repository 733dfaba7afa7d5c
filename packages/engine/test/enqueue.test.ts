import { createQueues, taskJobId, type Queues, type TaskJob } from "@svc/queue";
import { createTestRedis, type TestRedis } from "@svc/testing";
import { ENQUEUE_CHUNK, enqueueTasks } from "../src/runtime/enqueue";

let redis: TestRedis;
let queues: Queues;
beforeAll(() => {
  redis = createTestRedis("enqueue");
  queues = createQueues({ url: redis.url, prefix: redis.prefix });
});
afterAll(async () => {
  await queues.close();
  await redis.cleanup();
});

const jobs = (n: number): TaskJob[] => Array.from({ length: n }, (_, i) => ({ dagId: "wide", runId: "r1", taskId: `t${i}`, tryNumber: 1, dagHash: "h" }));

test("a fan-out larger than one chunk is added as several transactions of at most ENQUEUE_CHUNK jobs, each try once under its own id", async () => {
  const n = ENQUEUE_CHUNK * 2 + 50;
  const sizes: number[] = [];
  const addBulk = queues.tasks.addBulk.bind(queues.tasks);
  const spy = jest.spyOn(queues.tasks, "addBulk").mockImplementation(async (batch) => (sizes.push(batch.length), addBulk(batch)));
  try {
    await enqueueTasks(queues, jobs(n));
    expect(sizes).toEqual([ENQUEUE_CHUNK, ENQUEUE_CHUNK, 50]);
  } finally {
    spy.mockRestore();
  }
  const waiting = await queues.tasks.getWaiting(0, n);
  expect(waiting).toHaveLength(n);
  expect(new Set(waiting.map((j) => j.id))).toEqual(new Set(jobs(n).map(taskJobId)));
  expect(waiting.find((j) => j.id === taskJobId(jobs(n)[n - 1]!))?.data).toEqual(jobs(n)[n - 1]);

  // Enqueueing the same tries again (reconciliation racing the scheduler) adds nothing.
  await enqueueTasks(queues, jobs(n));
  expect(await queues.tasks.getWaitingCount()).toBe(n);
});

test("enqueueing no tries sends nothing", async () => {
  const spy = jest.spyOn(queues.tasks, "addBulk");
  try {
    await enqueueTasks(queues, []);
    expect(spy).not.toHaveBeenCalled();
  } finally {
    spy.mockRestore();
  }
});
