import { FlowProducer, Queue, Worker, type ConnectionOptions, type FlowJob } from "bullmq";
import { Logger, run, type Runner } from "graphile-worker";
import PgBoss from "pg-boss";
import { createRedis } from "@svc/queue";
import { deletePrefix } from "@svc/testing";

/** A queue a user might pick instead: the two workloads written the way its documentation suggests. */
export interface Peer {
  /** Seconds for `n` jobs, each enqueued by the one before, from the first enqueue to the last job run. */
  sequence(n: number): Promise<number>;
  /** Seconds for start → `n` jobs → end (end once all `n` are done). */
  fanOutIn(n: number): Promise<number>;
  close(): Promise<void>;
}

type Done = { resolve: () => void; mids: number; n: number };
const timed = async (start: (finish: Done) => Promise<void>, n = 0): Promise<number> => {
  const t0 = performance.now();
  await new Promise<void>((resolve, reject) => {
    start({ resolve, mids: 0, n }).catch(reject);
  });
  return (performance.now() - t0) / 1000;
};

/** Raw BullMQ: the sequence as a FlowProducer chain (children run first), the fan as a flow added by the start job. */
export async function bullmqPeer(url: string, prefix: string, concurrency: number): Promise<Peer> {
  const conn = createRedis(url) as ConnectionOptions;
  const flows = new FlowProducer({ connection: conn, prefix });
  let current: Done | undefined;
  const worker = new Worker(
    "peer",
    async (job) => {
      if (job.name === "last" || job.name === "end") current?.resolve();
      else if (job.name === "start")
        await flows.add({
          name: "end",
          queueName: "peer",
          opts: { removeOnComplete: true },
          children: Array.from({ length: current!.n }, (_, i) => ({ name: "mid", queueName: "peer", data: { i }, opts: { removeOnComplete: true } })),
        });
    },
    { connection: createRedis(url), prefix, concurrency },
  );
  await worker.waitUntilReady();
  const start = new Queue("peer", { connection: conn, prefix });
  return {
    sequence: (n) =>
      timed(async (d) => {
        current = d;
        let node: FlowJob = { name: "step", queueName: "peer", data: { i: 0 }, opts: { removeOnComplete: true } };
        for (let i = 1; i < n; i++) node = { name: i === n - 1 ? "last" : "step", queueName: "peer", data: { i }, opts: { removeOnComplete: true }, children: [node] };
        await flows.add(node);
      }),
    fanOutIn: (n) =>
      timed(async (d) => {
        current = d;
        await start.add("start", {}, { removeOnComplete: true });
      }, n),
    async close() {
      await worker.close();
      await flows.close();
      await start.close();
      await deletePrefix(url, prefix);
    },
  };
}

/** graphile-worker: each job adds the next (sequence); the start job adds the mids, the last mid to finish adds the end. */
export async function graphilePeer(connectionString: string, concurrency: number): Promise<Peer> {
  let current: Done | undefined;
  const runner: Runner = await run({
    connectionString,
    concurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    logger: new Logger(() => () => undefined),
    taskList: {
      step: async (payload, helpers) => {
        const { i, n } = payload as { i: number; n: number };
        if (i + 1 < n) await helpers.addJob("step", { i: i + 1, n });
        else current?.resolve();
      },
      start: async (payload, helpers) => {
        const { n } = payload as { n: number };
        await Promise.all(Array.from({ length: n }, (_, i) => helpers.addJob("mid", { i })));
      },
      mid: async (_p, helpers) => {
        if (current && ++current.mids === current.n) await helpers.addJob("end", {});
      },
      end: async () => current?.resolve(),
    },
  });
  return {
    sequence: (n) =>
      timed(async (d) => {
        current = d;
        await runner.addJob("step", { i: 0, n });
      }),
    fanOutIn: (n) =>
      timed(async (d) => {
        current = d;
        await runner.addJob("start", { n });
      }, n),
    close: () => runner.stop(),
  };
}

/** pg-boss: like graphile-worker; every send wakes the workers (`notifyWorker`), so no poll interval is waited. */
export async function pgBossPeer(connectionString: string, concurrency: number): Promise<Peer> {
  const boss = new PgBoss({ connectionString, schema: "pgboss", supervise: false, schedule: false, migrate: true });
  boss.on("error", () => undefined);
  await boss.start();
  let current: Done | undefined;
  const ids: string[] = [];
  const wake = () => ids.forEach((id) => boss.notifyWorker(id));
  for (const q of ["step", "start", "mid", "end"]) await boss.createQueue(q);
  // Each worker takes up to `batch` jobs a fetch (pg-boss's way to throughput) and runs them together.
  const work = async (q: string, f: (data: { i: number; n: number }) => Promise<void>, batch = 1) => {
    for (let c = 0; c < concurrency; c++)
      ids.push(
        await boss.work<{ i: number; n: number }>(q, { pollingIntervalSeconds: 0.5, batchSize: batch }, async (jobs) => void (await Promise.all(jobs.map((j) => f(j.data))))),
      );
  };
  await work("step", async ({ i, n }) => {
    if (i + 1 < n) {
      await boss.send("step", { i: i + 1, n });
      wake();
    } else current?.resolve();
  });
  await work("start", async ({ n }) => {
    await boss.insert(Array.from({ length: n }, (_, i) => ({ name: "mid", data: { i } })));
    wake();
  });
  await work(
    "mid",
    async () => {
      if (current && ++current.mids === current.n) {
        await boss.send("end", {});
        wake();
      }
    },
    100,
  );
  await work("end", async () => current?.resolve());
  return {
    sequence: (n) =>
      timed(async (d) => {
        current = d;
        await boss.send("step", { i: 0, n });
        wake();
      }),
    fanOutIn: (n) =>
      timed(async (d) => {
        current = d;
        await boss.send("start", { n });
        wake();
      }, n),
    close: () => boss.stop({ graceful: true, wait: true, timeout: 10000, close: true }),
  };
}
