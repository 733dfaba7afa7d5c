import { parentChildHarness, type Harness } from "./harness";

// Every test here runs on ONE worker slot: a parent task that held its slot while waiting would
// leave none for the child's tasks, and the test would time out.
let h: Harness;

const CHILD_DAG = `
dag_id: child
params:
  outcome: {type: string, enum: [ok, fail], default: ok}
tasks:
  - {task_id: warm_up, operator: sleep, args: {seconds: 1.2}}
  - {task_id: ok, operator: noop, depends_on: [warm_up], when: "{{ params.outcome == 'ok' }}"}
  - task_id: broken
    operator: shell
    args: {argv: [sh, -c, "echo disk is full; exit 3"]}
    depends_on: [warm_up]
    when: "{{ params.outcome == 'fail' }}"
`;

const PARENT_DAG = `
dag_id: parent
params:
  outcome: {type: string, default: ok}
tasks:
  - task_id: run_child
    operator: trigger_dag_run
    args: {trigger_dag_id: child, conf: {outcome: "{{ params.outcome }}"}, poke_interval: 1}
  - {task_id: after, operator: noop, depends_on: [run_child]}
`;

beforeAll(async () => {
  h = await parentChildHarness("trigdag", CHILD_DAG, PARENT_DAG);
});

afterAll(async () => h?.close());

const childRunsOf = (runId: string) =>
  h.db.selectFrom("dag_run").selectAll().where("parent_dag_id", "=", "parent").where("parent_run_id", "=", runId).orderBy("parent_try_number").execute();

test("with one worker slot, the waiting parent task frees it for the child's tasks: the child succeeds, then the parent task, in one try of several pokes", async () => {
  const run = await h.api.triggerDagRun("parent", { runId: "ok-1" });
  expect((await h.waitRun("parent", "ok-1")).state).toBe("success");
  const [child, ...others] = await childRunsOf(run.dag_run_id);
  expect(others).toEqual([]);
  expect(child).toMatchObject({ dag_id: "child", state: "success", parent_task_id: "run_child", parent_try_number: 1, conf: { outcome: "ok" } });
  const t = await h.tis("parent", "ok-1");
  expect([t.run_child!.state, t.run_child!.try_number, t.after!.state]).toEqual(["success", 1, "success"]);
  expect(t.run_child!.output).toEqual({ trigger_dag_id: "child", trigger_run_id: child!.run_id, state: "success", triggered_at: child!.logical_date.toISOString() });
  // The child's 1.2 s task outlasts a poke: the try was rescheduled (slot freed) at least once.
  const log = await h.logs("parent", "ok-1", "run_child", 1);
  expect(log.filter((l) => l.startsWith("rescheduled: this try runs again in 1s")).length).toBeGreaterThanOrEqual(1);
  expect(log.filter((l) => l.startsWith("triggered run "))).toEqual([`triggered run ${child!.run_id} of DAG child`]);
});

test("the parent's task instance links its child run (REST task instance), and the child run names its parent (REST dag run)", async () => {
  await h.api.triggerDagRun("parent", { runId: "link-1" });
  await h.waitRun("parent", "link-1");
  const [child] = await childRunsOf("link-1");
  const ti = await h.api.getTaskInstance("parent", "link-1", "run_child");
  expect(ti.triggered_dag_runs).toEqual([{ dag_id: "child", dag_run_id: child!.run_id, try_number: 1, state: "success" }]);
  const listed = await h.api.listTaskInstances("parent", "link-1");
  expect(listed.task_instances.find((x) => x.task_id === "run_child")!.triggered_dag_runs).toEqual(ti.triggered_dag_runs);
  expect(listed.task_instances.find((x) => x.task_id === "after")!.triggered_dag_runs).toEqual([]);
  expect((await h.api.getDagRun("child", child!.run_id)).triggered_by).toEqual({ dag_id: "parent", dag_run_id: "link-1", task_id: "run_child", try_number: 1 });
});

test("a failed child fails the parent's task with the child's failed task, its error and its last log line, in the error and the log", async () => {
  await h.api.triggerDagRun("parent", { runId: "fail-1", conf: { outcome: "fail" } });
  expect((await h.waitRun("parent", "fail-1")).state).toBe("failed");
  const [child] = await childRunsOf("fail-1");
  expect(child!.state).toBe("failed");
  const t = await h.tis("parent", "fail-1");
  expect([t.run_child!.state, t.after!.state]).toEqual(["failed", "upstream_failed"]);
  const reason = "task broken failed: command exited with 3; last log line: disk is full";
  expect(t.run_child!.error).toContain(`triggered run ${child!.run_id} of DAG child ended failed: ${reason}`);
  expect((await h.logs("parent", "fail-1", "run_child")).join("\n")).toContain(reason);
});

test("conf the child's params reject fails the parent's task with the child's validation message, and no child run is created", async () => {
  await h.api.triggerDagRun("parent", { runId: "badconf-1", conf: { outcome: "maybe" } });
  expect((await h.waitRun("parent", "badconf-1")).state).toBe("failed");
  const t = await h.tis("parent", "badconf-1");
  expect(t.run_child!.error).toMatch(/^cannot trigger DAG 'child': conf does not match the params of DAG 'child': outcome: /);
  expect(await childRunsOf("badconf-1")).toEqual([]);
});

test("a paused child DAG whose file does not let triggered runs start while paused fails the parent's task saying so, and no child run is made (more in trigger-dag-run-rights.test.ts)", async () => {
  await h.api.setPaused("child", true);
  try {
    await h.api.triggerDagRun("parent", { runId: "paused-1" });
    expect((await h.waitRun("parent", "paused-1")).state).toBe("failed");
    expect((await h.tis("parent", "paused-1")).run_child!.error).toContain("cannot trigger DAG 'child': DAG 'child' is paused");
    expect(await childRunsOf("paused-1")).toEqual([]);
    expect((await h.api.getDag("child")).is_paused).toBe(true);
  } finally {
    await h.api.setPaused("child", false);
  }
});
