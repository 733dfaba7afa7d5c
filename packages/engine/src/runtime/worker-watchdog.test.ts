import { randomBytes } from "node:crypto";
import { Queue, Worker } from "bullmq";
import IORedis from "ioredis";
import { startRedisServer } from "@svc/testing";
import { superviseWorker } from "./worker-watchdog";

// Real Redis, a prefix of this file's own. The first worker is made but never run: it takes no job,
// as a worker left blocked on a dead connection after a failover takes none.
const prefix = `wdog-${randomBytes(4).toString("hex")}`;
const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const connection = new IORedis(url, { maxRetriesPerRequest: null });
const queue = new Queue("events", { connection, prefix });
const workers: Worker[] = [];

afterAll(async () => {
  await Promise.all(workers.map((w) => w.close(true)));
  await queue.obliterate({ force: true });
  await queue.close();
  connection.disconnect();
});

test("a worker that takes none of its queue's waiting jobs for staleMs is made anew, and the new one takes them", async () => {
  const done: string[] = [];
  const restarts: { waiting: number; idleMs: number }[] = [];
  const make = () => {
    const stuck = workers.length === 0;
    const w = new Worker("events", async (job) => void done.push(String(job.id)), { connection, prefix, autorun: !stuck });
    workers.push(w);
    return w;
  };
  const s = superviseWorker(make, queue, { intervalMs: 200, staleMs: 1000, onRestart: (f) => void restarts.push(f) });
  try {
    await queue.addBulk([1, 2, 3].map((i) => ({ name: "e", data: { i }, opts: { jobId: `j${i}` } })));
    for (let t = 0; t < 100 && done.length < 3; t++) await new Promise((r) => setTimeout(r, 100));
    expect(done.sort()).toEqual(["j1", "j2", "j3"]);
    expect(restarts).toHaveLength(1);
    expect(restarts[0]!.waiting).toBe(3);
    expect(restarts[0]!.idleMs).toBeGreaterThanOrEqual(1000);
    expect(s.current()).toBe(workers[1]);
  } finally {
    s.stop();
  }
});

test("a worker that keeps taking jobs, or an empty queue, is left alone", async () => {
  const restarts: unknown[] = [];
  const before = workers.length;
  const s = superviseWorker(
    () => {
      const w = new Worker("events", async () => undefined, { connection, prefix });
      workers.push(w);
      return w;
    },
    queue,
    { intervalMs: 200, staleMs: 1000, onRestart: (f) => void restarts.push(f) },
  );
  try {
    await queue.add("e", {}, { jobId: "k1" });
    await new Promise((r) => setTimeout(r, 2500));
    expect(restarts).toEqual([]);
    expect(workers.length).toBe(before + 1);
  } finally {
    s.stop();
  }
});

test("a waiting count that never answers (every client paused) is reported each interval instead of stopping the checks, and the watchdog acts once it answers", async () => {
  const own = await startRedisServer();
  const conn = new IORedis(own.url, { maxRetriesPerRequest: null });
  const admin = new IORedis(own.url, { maxRetriesPerRequest: null });
  const q = new Queue("events", { connection: conn, prefix });
  const unreadable: { err: string; unreadableMs: number }[] = [];
  const restarts: unknown[] = [];
  const made: Worker[] = [];
  const s = superviseWorker(
    () => {
      // Never run: it takes nothing, so jobs that wait are the watchdog's to notice.
      const w = new Worker("events", async () => undefined, { connection: conn, prefix, autorun: false });
      made.push(w);
      return w;
    },
    q,
    { intervalMs: 200, staleMs: 1000, onRestart: (f) => void restarts.push(f), onUnreadable: (f) => void unreadable.push(f) },
  );
  try {
    await q.add("e", {}, { jobId: "p1" });
    await admin.call("CLIENT", "PAUSE", "2000", "ALL");
    await new Promise((r) => setTimeout(r, 1500));
    // The reads hang while paused: each interval says so instead of waiting for ever.
    expect(unreadable.length).toBeGreaterThanOrEqual(2);
    expect(unreadable.every((u) => /no answer within 200 ms/.test(u.err))).toBe(true);
    for (let t = 0; t < 50 && restarts.length === 0; t++) await new Promise((r) => setTimeout(r, 100));
    expect(restarts.length).toBeGreaterThanOrEqual(1);
  } finally {
    s.stop();
    await Promise.all(made.map((w) => w.close(true)));
    await q.close();
    conn.disconnect();
    admin.disconnect();
    await own.stop();
  }
});
