import { spawn } from "node:child_process";
import { join } from "node:path";
import { startRedisServer, type OwnRedis } from "@svc/testing";

const ENQUEUE_TS = join(__dirname, "../src/runtime/enqueue.ts");

// A separate process: an unhandled rejection ends it (as it ended a scheduler when Redis failed
// over during a reconciliation), where in jest's own process it would only be reported. The child
// connects its producer queues, says "ready", and on "go" enqueues a fan-out of several chunks.
const CHILD = `
const { createQueues, pingRedis } = require("@svc/queue");
const { enqueueTasks } = require(${JSON.stringify(ENQUEUE_TS)});
(async () => {
  const queues = createQueues({ url: process.env.REDIS_URL, prefix: "enqueue-outage" });
  await pingRedis(queues.connection);
  console.log("ready");
  await new Promise((r) => process.stdin.once("data", r));
  const jobs = Array.from({ length: 250 }, (_, i) => ({ dagId: "wide", runId: "r1", taskId: "t" + i, tryNumber: 1, dagHash: "h" }));
  const outcome = await enqueueTasks(queues, jobs).then(() => "resolved", (e) => "rejected: " + e.message);
  console.log("enqueue " + outcome);
  queues.connection.disconnect();
  process.exit(0);
})();
`;

let redis: OwnRedis;
let stopped = false;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  if (!stopped) await redis.stop();
});

test("a fan-out enqueued while Redis is gone rejects to its caller (the scheduler retries on its next pass) and does not end the process", async () => {
  const child = spawn(process.execPath, ["--import", "tsx", "-e", CHILD], {
    cwd: join(__dirname, ".."),
    env: { ...process.env, REDIS_URL: redis.url },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  const deadline = Date.now() + 20_000;
  while (!out.includes("ready")) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`child not ready: out=${out} err=${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  await redis.stop();
  stopped = true;
  // The producer connection sees the close before the enqueue starts (no offline queue: commands fail at once).
  await new Promise((r) => setTimeout(r, 300));
  child.stdin.end("go\n");
  const code = await exited;
  expect({ code, out: out.trim().split("\n").pop(), crash: /Unhandled|unhandled|^Error/m.test(err) ? err.slice(0, 400) : "" }).toEqual({
    code: 0,
    out: expect.stringMatching(/^enqueue rejected: /),
    crash: "",
  });
}, 60_000);
