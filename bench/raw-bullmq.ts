import { Queue, Worker, type ConnectionOptions } from "bullmq";
import { createRedis } from "@svc/queue";
import { deletePrefix } from "@svc/testing";

/** Jobs/s of plain BullMQ no-op jobs with the same worker count and concurrency as the engine run. */
export async function rawBullmqThroughput(url: string, prefix: string, n: number, workers: number, concurrency: number): Promise<number> {
  const conn = createRedis(url);
  const q = new Queue("raw", { connection: conn as ConnectionOptions, prefix });
  await q.addBulk(Array.from({ length: n }, (_, i) => ({ name: "noop", data: { i }, opts: { removeOnComplete: true } })));
  let done = 0;
  let finish!: () => void;
  const all = new Promise<void>((r) => (finish = r));
  const t0 = Date.now();
  const ws = Array.from({ length: workers }, () =>
    new Worker("raw", async () => undefined, { connection: createRedis(url) as ConnectionOptions, prefix, concurrency }).on("completed", () => {
      if (++done === n) finish();
    }),
  );
  await all;
  const secs = (Date.now() - t0) / 1000;
  await Promise.all(ws.map((w) => w.close()));
  await q.close();
  conn.disconnect();
  await deletePrefix(url, prefix);
  return n / secs;
}
