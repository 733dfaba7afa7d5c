import { createTestDb, type TestDb } from "@svc/testing";
import { redisFailoverDrill, type RedisFailoverResult } from "./redis-failover";

const RUNS = Number(process.env.HA_RUNS ?? 120);
let tdb: TestDb;
let result: RedisFailoverResult;
beforeAll(async () => {
  tdb = await createTestDb("hasentinel");
  result = await redisFailoverDrill({ databaseUrl: tdb.url, runs: RUNS, label: "hasentinel", say: (s) => process.stderr.write(`${s}\n`) });
  const { diagnosis, ...summary } = result;
  process.stderr.write(`${JSON.stringify({ ...summary, answers: result.answers.map((a) => `${a.atMs}:${a.status}:${a.seconds}`) })}\n`);
  // Runs left unfinished: where their tasks stand and what each service last warned about.
  if (diagnosis) {
    process.stderr.write(`task states: ${JSON.stringify(diagnosis.taskStates)}\nredis: ${JSON.stringify(diagnosis.redis, null, 1)}\n`);
    for (const [name, lines] of Object.entries(diagnosis.services)) process.stderr.write(`--- ${name}\n${lines.join("\n")}\n`);
  }
}, 420_000);
afterAll(async () => {
  await tdb?.drop();
});

test("with the Redis primary killed (-9) under 120 runs in flight, the sentinels promote the replica and every run ends in success: none stuck, none lost, no try committed twice", () => {
  expect(result.newPrimaryPort).not.toBe(result.oldPrimaryPort);
  expect(result.runs.runs).toBe(result.triggered);
  expect(result.runs.success).toBe(result.triggered);
  expect(result.runs.unfinishedRuns).toBe(0);
  expect(result.runs.stuckTasks).toBe(0);
  expect(result.runs.doubleCommits).toBe(0);
});

test("during the failover the REST API answers 503 or 200, each within 5 s (never a hang), and accepts triggers again within 30 s of the kill", () => {
  expect(result.answers.length).toBeGreaterThan(0);
  for (const a of result.answers) {
    expect([200, 503]).toContain(a.status);
    expect(a.seconds).toBeLessThan(5);
  }
  expect(result.apiBackMs).toBeLessThan(30_000);
});
