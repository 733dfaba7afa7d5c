// The engine decides in TypeScript (src/core) and writes in SQL (svc_apply_decision, svc_try_ops):
// the same fixtures through both, and the database must end where the pure decision says.
import { sql } from "kysely";
import { TRIGGER_RULES, type DagDefinition, type TaskDefinition, type TriggerRule } from "@svc/dags";
import { TASK_STATES, type TaskState } from "@svc/db";
import { createTestDb, type TestDb } from "@svc/testing";
import { decideRun, isFinished, type RunDecision } from "../src/core/decide";
import { evaluateTriggerRule, countUpstream } from "../src/core/trigger-rules";
import { taskFacts } from "../src/runtime/definition-cache";
import { applyDecision, readRun } from "../src/runtime/run-read";
import { runTryOps } from "../src/runtime/try-ops";

let tdb: TestDb;
beforeAll(async () => {
  tdb = await createTestDb("coresql");
});
afterAll(async () => {
  await tdb.drop();
});

const NOW = new Date("2030-06-01T12:00:00.000Z");
const PAST = new Date(NOW.getTime() - 60_000);
const LATER = new Date(NOW.getTime() + 60_000);

type T = { id: string; deps?: string[]; rule?: TriggerRule; when?: string };
/** A task instance of a fixture: its state, try number and retry time. */
type Ti = { state: TaskState | null; try?: number; next?: Date };

const task = (t: T): TaskDefinition => ({
  task_id: t.id,
  operator: "noop",
  args: {},
  depends_on: t.deps ?? [],
  trigger_rule: t.rule ?? "all_success",
  when: t.when ?? null,
  retries: 1,
  retry_delay_ms: 1000,
  retry_exponential_backoff: false,
  max_retry_delay_ms: 1000,
  execution_timeout_ms: null,
  doc: null,
});
const dagOf = (tasks: T[]): DagDefinition => ({
  dag_id: "d",
  description: null,
  tags: [],
  owners: [],
  schedule: null,
  max_active_runs: 16,
  params: {},
  required_params: [],
  examples: [],
  doc_md: null,
  tasks: tasks.map(task),
});

async function seedRun(runId: string, tis: Record<string, Ti>): Promise<void> {
  await sql`insert into dag_run (dag_id, run_id, state, run_type, conf, definition, dag_hash, logical_date)
    values ('d', ${runId}, 'running', 'manual', '{}', '{}', 'h1', ${new Date(NOW.getTime() - Math.random() * 1e9)})`.execute(tdb.db);
  for (const [taskId, ti] of Object.entries(tis))
    await sql`insert into task_instance (dag_id, run_id, task_id, state, try_number, max_tries, operator, next_retry_at)
      values ('d', ${runId}, ${taskId}, ${ti.state}, ${ti.try ?? (ti.state === null ? 0 : 1)}, 2, 'noop', ${ti.next ?? null})`.execute(tdb.db);
}

/** Each task as `state@try`, and the run's state. */
async function stored(runId: string): Promise<{ run: string; tasks: Record<string, string> }> {
  const rows = await tdb.db.selectFrom("task_instance").select(["task_id", "state", "try_number"]).where("run_id", "=", runId).execute();
  const run = await tdb.db.selectFrom("dag_run").select("state").where("run_id", "=", runId).executeTakeFirstOrThrow();
  return { run: run.state, tasks: Object.fromEntries(rows.map((r) => [r.task_id, `${r.state ?? "none"}@${r.try_number}`])) };
}

/** What the pure decision says the rows become: the same shape as `stored`. */
function expected(tis: Record<string, Ti>, d: RunDecision): { run: string; tasks: Record<string, string> } {
  const tasks = Object.fromEntries(Object.entries(tis).map(([id, ti]) => [id, `${ti.state ?? "none"}@${ti.try ?? (ti.state === null ? 0 : 1)}`]));
  for (const q of d.queue) tasks[q.task_id] = `queued@${q.try_number}`;
  for (const id of d.skip) tasks[id] = `skipped@${tasks[id]!.split("@")[1]}`;
  for (const id of d.upstreamFailed) tasks[id] = `upstream_failed@${tasks[id]!.split("@")[1]}`;
  return { run: d.runState, tasks };
}

interface DecisionFixture {
  name: string;
  tasks: T[];
  tis: Record<string, Ti>;
  /** Tasks whose condition is false. */
  falseWhen?: string[];
  /** What the fixture must exercise in the decision (so a fixture cannot silently decide nothing). */
  covers: (d: RunDecision) => boolean;
}

const FIXTURES: DecisionFixture[] = [
  {
    name: "a success queues its downstream",
    tasks: [{ id: "a" }, { id: "b", deps: ["a"] }],
    tis: { a: { state: "success" }, b: { state: null } },
    covers: (d) => d.queue.length === 1,
  },
  {
    name: "a failure makes its downstream upstream_failed to the end of the chain, and fails the run",
    tasks: [{ id: "a" }, { id: "b", deps: ["a"] }, { id: "c", deps: ["b"] }],
    tis: { a: { state: "failed" }, b: { state: null }, c: { state: null } },
    covers: (d) => d.upstreamFailed.length === 2 && d.runState === "failed",
  },
  {
    name: "a skip skips its downstream, and the run succeeds",
    tasks: [{ id: "a" }, { id: "b", deps: ["a"] }],
    tis: { a: { state: "skipped" }, b: { state: null } },
    covers: (d) => d.skip.length === 1 && d.runState === "success",
  },
  {
    name: "a false condition skips a task its rule would run",
    tasks: [{ id: "a" }, { id: "b", deps: ["a"], when: "{{ params.x }}" }, { id: "c", deps: ["b"] }],
    tis: { a: { state: "success" }, b: { state: null }, c: { state: null } },
    falseWhen: ["b"],
    covers: (d) => d.skip.length === 2,
  },
  {
    name: "a retry that is due is queued at the next try number; one that is not waits",
    tasks: [{ id: "a" }, { id: "b" }],
    tis: { a: { state: "up_for_retry", try: 1, next: PAST }, b: { state: "up_for_retry", try: 1, next: LATER } },
    covers: (d) => d.queue.length === 1 && d.wakeAt !== null,
  },
  {
    name: "a reschedule that is due is queued at its own try number",
    tasks: [{ id: "a" }],
    tis: { a: { state: "up_for_reschedule", try: 2, next: PAST } },
    covers: (d) => d.queue[0]?.reschedule === true,
  },
  {
    name: "every trigger rule on one success and one failure",
    tasks: [{ id: "s" }, { id: "f" }, ...TRIGGER_RULES.map((rule) => ({ id: `j_${rule}`, deps: ["s", "f"], rule })), { id: "after", deps: ["j_one_failed"] }],
    tis: { s: { state: "success" }, f: { state: "failed" }, ...Object.fromEntries(TRIGGER_RULES.map((r) => [`j_${r}`, { state: null }])), after: { state: null } },
    covers: (d) => d.queue.length > 0 && d.skip.length > 0 && d.upstreamFailed.length > 0,
  },
  {
    name: "every trigger rule on one skip and one unfinished upstream",
    tasks: [{ id: "k" }, { id: "r" }, ...TRIGGER_RULES.map((rule) => ({ id: `j_${rule}`, deps: ["k", "r"], rule }))],
    tis: { k: { state: "skipped" }, r: { state: "running" }, ...Object.fromEntries(TRIGGER_RULES.map((r) => [`j_${r}`, { state: null }])) },
    covers: (d) => d.queue.length > 0 && d.skip.length > 0 && d.runState === "running",
  },
  {
    name: "a task waits while its upstream runs",
    tasks: [{ id: "a" }, { id: "b", deps: ["a"] }],
    tis: { a: { state: "running" }, b: { state: null } },
    covers: (d) => d.queue.length + d.skip.length + d.upstreamFailed.length === 0 && d.runState === "running",
  },
];

describe("svc_apply_decision writes what decideRun decides", () => {
  test.each(FIXTURES.map((f) => [f.name, f] as const))("%s", async (_name, f) => {
    const runId = `dec_${FIXTURES.indexOf(f)}`;
    await seedRun(runId, f.tis);
    const dag = dagOf(f.tasks);
    const run = (await readRun(tdb.db, "d", runId, 0))!;
    expect(run.tis).toBeDefined();
    const decision = decideRun(dag, run.tis!, NOW, (t) => !f.falseWhen?.includes(t.task_id));
    expect(f.covers(decision)).toBe(true);
    const applied = await applyDecision(tdb.db, run, decision, NOW);
    expect(applied?.queued).toEqual(decision.queue);
    expect(await stored(runId)).toEqual(expected(f.tis, decision));
  });
});

describe("a hop svc_try_ops queues with its upstream's success is the decision decideRun makes", () => {
  const variants = [...TRIGGER_RULES.map((rule) => ({ rule, when: undefined })), { rule: "all_success" as const, when: "{{ params.x }}" }];
  test.each(variants.map((v) => [`${v.rule}${v.when ? " with a condition" : ""}`, v] as const))("%s", async (_name, v) => {
    const runId = `hop_${v.rule}_${v.when ? "when" : "plain"}`;
    const dag = dagOf([{ id: "a" }, { id: "b", deps: ["a"], rule: v.rule, when: v.when }]);
    await seedRun(runId, { a: { state: "queued", try: 1 }, b: { state: null } });
    const job = { dagId: "d", runId, taskId: "a", tryNumber: 1 };
    await runTryOps(tdb.db, { claims: [{ job, workerId: "w1" }], commits: [], openChecks: [] }, NOW);
    const hops = taskFacts(dag, "a")!.hops;
    const round = await runTryOps(tdb.db, { claims: [], commits: [{ job, workerId: "w1", outcome: { state: "success" }, logs: [], hops }], openChecks: [] }, NOW);
    expect(round.committed).toEqual([true]);

    // The pure decision on the state the round left, had it queued nothing.
    const decision = decideRun(
      dag,
      [
        { task_id: "a", state: "success", try_number: 1, next_retry_at: null },
        { task_id: "b", state: null, try_number: 0, next_retry_at: null },
      ],
      NOW,
      () => true,
    );
    // The hop is complete: every single-upstream task without a condition that waits for a and
    // runs on its success is queued by the round, at the try number the core gives it.
    const hopExpected = decision.queue.length > 0 && v.when === undefined && evaluateTriggerRule(v.rule, countUpstream([null])) === "wait";
    expect(round.queued.map((q) => ({ task_id: q.taskId, try_number: q.tryNumber }))).toEqual(hopExpected ? decision.queue : []);
    expect((await stored(runId)).tasks.b).toBe(hopExpected ? `queued@${decision.queue[0]!.try_number}` : "none@0");
  });

  test("a failed or retried outcome queues no hop", async () => {
    const dag = dagOf([{ id: "a" }, { id: "b", deps: ["a"] }]);
    const hops = taskFacts(dag, "a")!.hops;
    expect(hops).toEqual(["b"]);
    for (const state of ["failed", "up_for_retry"] as const) {
      const runId = `hop_${state}`;
      await seedRun(runId, { a: { state: "queued", try: 1 }, b: { state: null } });
      const job = { dagId: "d", runId, taskId: "a", tryNumber: 1 };
      await runTryOps(tdb.db, { claims: [{ job, workerId: "w1" }], commits: [], openChecks: [] }, NOW);
      const outcome = state === "failed" ? { state } : { state, nextRetryAt: LATER };
      const round = await runTryOps(tdb.db, { claims: [], commits: [{ job, workerId: "w1", outcome, logs: [], hops }], openChecks: [] }, NOW);
      expect(round).toMatchObject({ committed: [true], queued: [] });
      // The core does not queue b either: it fails with a (upstream_failed) or waits for the retry.
      const decision = decideRun(
        dag,
        [
          { task_id: "a", state, try_number: 1, next_retry_at: state === "failed" ? null : LATER },
          { task_id: "b", state: null, try_number: 0, next_retry_at: null },
        ],
        NOW,
        () => true,
      );
      expect(decision.queue).toEqual([]);
      expect((await stored(runId)).tasks.b).toBe("none@0");
    }
  });
});

describe("svc_try_ops's open check agrees with isFinished", () => {
  // up_for_reschedule is the one difference, kept on purpose (migration 011): the check counts it
  // as finished, so a leaf ending beside one notifies the scheduler once more, which finds the run
  // still running.
  const OPEN_IN_SQL = (s: TaskState | null) => s !== "up_for_reschedule" && !isFinished(s);
  test.each([null, ...TASK_STATES].map((s) => [s ?? "none", s] as const))("a run with a task %s", async (_name, state) => {
    const runId = `open_${state ?? "none"}`;
    await seedRun(runId, { done: { state: "success" }, t: { state } });
    const check = await runTryOps(tdb.db, { claims: [], commits: [], openChecks: [{ dagId: "d", runId }] }, NOW);
    expect(check.open).toEqual([OPEN_IN_SQL(state)]);
    if (!check.open[0]) {
      // A closed run comes back as its read: the one readRun makes, and decideRun's end of the run.
      const read = check.reads[0]!;
      const direct = (await readRun(tdb.db, "d", runId, 0))!;
      expect(read).toMatchObject({ id: direct.id, state: direct.state, version: direct.version, tis: direct.tis });
      const dag = dagOf([{ id: "done" }, { id: "t" }]);
      const decision = decideRun(dag, read.tis!, NOW, () => true);
      expect(decision.runState).toBe(isFinished(state) ? (state === "failed" || state === "upstream_failed" ? "failed" : "success") : "running");
    } else {
      expect(check.reads).toEqual([undefined]);
    }
  });
});
