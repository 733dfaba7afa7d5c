import { z } from "zod";
import { silentLogger } from "@svc/logger";
import { createOperatorRegistry, noopOperator } from "./fixtures/operators";
import type { Operator } from "../src/ports";
import { taskJobId } from "@svc/queue";
import { nullNotifier } from "../src";
import { startQueuedRuns } from "../src/runtime/start-runs";
import { createHarness, type Harness } from "./harness";

// A claimed downstream that its upstream's round queued runs next in the upstream's slot, without a
// job; the slot stays one slot, so the worker never runs more tries at once than its concurrency.
let h: Harness;
let now = 0;
let most = 0;
const probe: Operator<{ ms: number }> = {
  name: "probe",
  description: "Counts the tries running at once in this process",
  args: z.object({ ms: z.number() }),
  async run(args) {
    most = Math.max(most, ++now);
    await new Promise((r) => setTimeout(r, args.ms));
    now--;
    return { most };
  },
};
const operators = createOperatorRegistry([noopOperator, probe]);
const CONCURRENCY = 3;

beforeAll(async () => {
  h = await createHarness("slotchain", { operators });
  const fan = Array.from(
    { length: 8 },
    (_, i) => `  - {task_id: m${i}, operator: probe, args: {ms: 150}, depends_on: [root]}\n  - {task_id: n${i}, operator: probe, args: {ms: 50}, depends_on: [m${i}]}\n`,
  );
  h.writeDag("fan.yaml", `dag_id: fan\ntasks:\n  - {task_id: root, operator: probe, args: {ms: 10}}\n${fan.join("")}`);
  h.writeDag(
    "chain.yaml",
    `dag_id: chain\ntasks:\n` + Array.from({ length: 5 }, (_, i) => `  - {task_id: t${i}, operator: probe, args: {ms: 5}${i ? `, depends_on: [t${i - 1}]` : ""}}\n`).join(""),
  );
  await h.sync();
  for (const d of ["fan", "chain"]) await h.api.setPaused(d, false);
  h.startRuntime({ scheduler: false, operators, workerConcurrency: CONCURRENCY });
}, 60000);

afterAll(() => h.close());

const deps = () => ({ db: h.db, queues: h.queues, notifier: nullNotifier, logger: silentLogger() });
const jobsOf = async (dagId: string, runId: string, tasks: string[]) => {
  const added = await h.addedTaskJobs();
  return tasks.filter((taskId) => added.includes(taskJobId({ dagId, runId, taskId, tryNumber: 1 })));
};

test("a chain of claimed tries runs in one slot after its first task's job: each downstream queued in Postgres and started after its upstream ended", async () => {
  await h.api.triggerDagRun("chain", { runId: "c1" });
  await startQueuedRuns(deps(), "chain");
  expect((await h.waitRun("chain", "c1")).state).toBe("success");
  const tis = await h.tis("chain", "c1");
  const order = ["t0", "t1", "t2", "t3", "t4"];
  expect(order.map((t) => `${t}:${tis[t]!.state}@${tis[t]!.try_number}`)).toEqual(order.map((t) => `${t}:success@1`));
  for (let i = 1; i < order.length; i++) expect(new Date(tis[order[i]!]!.start_date!).getTime()).toBeGreaterThanOrEqual(new Date(tis[order[i - 1]!]!.end_date!).getTime());
  expect(await jobsOf("chain", "c1", order)).toEqual(["t0"]);
}, 60000);

test("a fan-out keeps one claimed downstream per slot and sends the rest through the queue: never more tries at once than the worker's concurrency", async () => {
  most = 0;
  await h.api.triggerDagRun("fan", { runId: "f1" });
  await startQueuedRuns(deps(), "fan");
  expect((await h.waitRun("fan", "f1")).state).toBe("success");
  const tis = await h.tis("fan", "f1");
  expect(Object.values(tis).every((t) => t.state === "success" && t.try_number === 1)).toBe(true);
  expect(most).toBeLessThanOrEqual(CONCURRENCY);
  expect(most).toBeGreaterThan(1);
  const mids = Array.from({ length: 8 }, (_, i) => `m${i}`);
  const ends = Array.from({ length: 8 }, (_, i) => `n${i}`);
  // The root's slot kept one of the mids; the other seven got jobs. Each n ran in its m's slot.
  expect(await jobsOf("fan", "f1", ["root"])).toEqual(["root"]);
  expect(await jobsOf("fan", "f1", mids)).toHaveLength(7);
  expect(await jobsOf("fan", "f1", ends)).toEqual([]);
}, 60000);
