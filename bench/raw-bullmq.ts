import { Queue, Worker } from "bullmq";
import { createRedis } from "@svc/queue";
import { deletePrefix } from "@svc/testing";
import { cpuPerUnit, cpuSnapshot } from "./cpu";

/**
 * Jobs/s of plain BullMQ no-op jobs with the same worker count and concurrency as the engine run,
 * measured like the engine: from submitting the jobs (workers already waiting) to the last completion.
 */
export async function rawBullmqThroughput(url: string, prefix: string, n: number, workers: number, concurrency: number): Promise<{ rate: number; cpu: string }> {
  const conn = createRedis(url);
  const q = new Queue("raw", { connection: conn, prefix });
  let done = 0;
  let finish!: () => void;
  const all = new Promise<void>((r) => (finish = r));
  const ws = Array.from({ length: workers }, () =>
    new Worker("raw", async () => undefined, { connection: createRedis(url), prefix, concurrency }).on("completed", () => {
      if (++done === n) finish();
    }),
  );
  await Promise.all(ws.map((w) => w.waitUntilReady()));
  const cpu0 = cpuSnapshot();
  const t0 = Date.now();
  await q.addBulk(Array.from({ length: n }, (_, i) => ({ name: "noop", data: { i }, opts: { removeOnComplete: true } })));
  await all;
  const secs = (Date.now() - t0) / 1000;
  const cpu = cpuPerUnit(cpu0, cpuSnapshot(), n);
  await Promise.all(ws.map((w) => w.close()));
  await q.close();
  conn.disconnect();
  await deletePrefix(url, prefix);
  return { rate: n / secs, cpu };
}
