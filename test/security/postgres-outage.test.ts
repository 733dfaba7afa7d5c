import { waitFor } from "@svc/testing";
import { AUTH, startOwnFaultStack, type FaultStack, type OwnFaultStack } from "./fault-stack";

const OUTAGE_MS = 10_000;
const DAG_ID = "ticker";
// A line every 100 ms for 8 s, so the task ends during the outage and its outcome is committed
// after it; no retries: the run succeeds only if that one try lands.
const DAG = `dag_id: ${DAG_ID}\ntasks:\n  - {task_id: tick, operator: sleep, args: {seconds: 8, print_every: 0.1}}\n`;

let own: OwnFaultStack;
let stack: FaultStack;
beforeAll(async () => {
  own = await startOwnFaultStack({
    label: "pgoutage",
    dags: { [DAG_ID]: DAG },
    // Shorter than the outage: every heartbeat is stale when the database comes back, and the
    // reaper must still wait for the workers to be heard again (the try stays try 1).
    env: { SVC_ZOMBIE_AFTER_MS: "4000" },
  });
  stack = own.stack;
  await stack.start("scheduler", "scheduler");
  await stack.start("worker", "worker");
  await stack.start("web-ui", "web-ui");
}, 180_000);
afterAll(async () => {
  await own?.close();
});

const tickLines = async (runId: string) =>
  (
    await stack.db
      .selectFrom("task_log")
      .select("line")
      .where("dag_id", "=", DAG_ID)
      .where("run_id", "=", runId)
      .where("try_number", "=", 1)
      .where("stream", "=", "stdout")
      .orderBy("id")
      .execute()
  ).map((r) => r.line);

test("Postgres stopped for 10 s while a task prints a line every 100 ms and ends: the API answers 503 meanwhile, then the log has every line once and the run succeeds", async () => {
  const runId = (await stack.api.triggerDagRun(DAG_ID, {})).dag_run_id;
  await waitFor(async () => ((await tickLines(runId)).length >= 20 ? true : undefined), { timeoutMs: 30_000, what: "first lines stored" });

  await own.pg.stop();
  const down = Date.now();
  const during = await fetch(`${stack.webUiUrl}/api/v1/dags/${DAG_ID}/dagRuns/${runId}`, { headers: AUTH, signal: AbortSignal.timeout(10_000) });
  expect(during.status).toBe(503);
  expect(during.headers.get("retry-after")).toMatch(/^\d+$/);
  expect(await during.json()).toMatchObject({ status: 503, title: "Service Unavailable" });
  await new Promise((r) => setTimeout(r, Math.max(0, OUTAGE_MS - (Date.now() - down))));
  await own.pg.start();

  const run = await waitFor(
    async () => {
      const r = await stack.db.selectFrom("dag_run").select("state").where("dag_id", "=", DAG_ID).where("run_id", "=", runId).executeTakeFirst();
      return r?.state === "success" || r?.state === "failed" ? r : undefined;
    },
    { timeoutMs: 90_000, intervalMs: 500, what: "run finished" },
  ).catch(async (e: Error) => {
    // What the services said and where the run stands: a timeout here must explain itself.
    const tis = await stack.db
      .selectFrom("task_instance")
      .select(["state", "try_number"])
      .where("dag_id", "=", DAG_ID)
      .where("run_id", "=", runId)
      .execute()
      .catch(() => []);
    const tail = (name: string) => stack.output(name).split("\n").slice(-25).join("\n");
    throw new Error(`${e.message}\ntask instances: ${JSON.stringify(tis)}\n--- worker\n${tail("worker")}\n--- scheduler\n${tail("scheduler")}`);
  });
  expect(run.state).toBe("success");
  const ti = await stack.db.selectFrom("task_instance").select(["state", "try_number"]).where("dag_id", "=", DAG_ID).where("run_id", "=", runId).executeTakeFirstOrThrow();
  expect(ti).toMatchObject({ state: "success", try_number: 1 });

  const lines = await tickLines(runId);
  const numbers = lines.map((l) => Number(/^tick (\d+)$/.exec(l)?.[1]));
  // Every tick from 1 to the last, in order, none missing, none twice; about 80 in 8 s.
  expect(numbers).toEqual(numbers.map((_, i) => i + 1));
  expect(numbers.length).toBeGreaterThan(60);
  // The outage was felt where it matters: log inserts and the outcome commit failed, then landed.
  expect(stack.output("worker")).toMatch(/log write failed; the lines are kept and retried/);
  expect(stack.output("worker")).toMatch(/try outcome commit failed; retrying/);
  const system = (await stack.db.selectFrom("task_log").select("line").where("run_id", "=", runId).where("stream", "=", "system").execute()).map((r) => r.line);
  expect(system.some((l) => /dropped/.test(l))).toBe(false);
}, 180_000);
