import { createProducerRedis, createQueues, QUEUE_NAMES, taskJobId, type Queues } from "@svc/queue";
import { createTestRedis, type TestRedis } from "@svc/testing";
import { enqueueTasks } from "./enqueue";
import { jobsWithoutHash } from "./job-hashes";

let redis: TestRedis;
let queues: Queues;
beforeAll(() => {
  redis = createTestRedis("jobhashes");
  // Adding 1,200 jobs at once under a loaded machine can take longer than the services' 3 s
  // fail-fast deadline, which is not what this file tests.
  queues = createQueues({ url: redis.url, prefix: redis.prefix }, createProducerRedis(redis.url, 30_000), 30_000);
});
afterAll(async () => {
  await queues.close();
  await redis.cleanup();
});

const jobs = (n: number, runId: string) => Array.from({ length: n }, (_, i) => ({ dagId: "d", runId, taskId: `t${i}`, tryNumber: 1 }));

test("finds exactly the jobs whose hash is gone, among more jobs than one EXISTS chunk counts", async () => {
  const all = jobs(1200, "r1");
  await enqueueTasks(queues, all);
  expect(await jobsWithoutHash(queues, all)).toEqual([]);
  const lost = [all[3]!, all[700]!, all[1199]!];
  await queues.connection.del(...lost.map((j) => `${redis.prefix}:${QUEUE_NAMES.tasks}:${taskJobId(j)}`));
  expect(await jobsWithoutHash(queues, all)).toEqual(lost);
});

test("every job is missing after the queue's keys are wiped, and none are asked about when there are none", async () => {
  const all = jobs(20, "r2");
  expect(await jobsWithoutHash(queues, all)).toEqual(all);
  expect(await jobsWithoutHash(queues, [])).toEqual([]);
});
