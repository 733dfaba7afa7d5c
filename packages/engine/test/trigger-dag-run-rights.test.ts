import { roleReaches, type RunRole } from "@svc/dags";
import { createHarness, type Harness } from "./harness";

// A child run keeps the rights of its parent run: the role that run was triggered (or approved)
// with is checked against the child's min_role params and against a paused child DAG.
let h: Harness;

// May start while paused, when an op or above triggered the parent.
const OPEN_CHILD = `
dag_id: open_child
triggered_runs_while_paused: true
tasks:
  - {task_id: work, operator: noop}
`;

// Says nothing: a paused DAG refuses every triggered run.
const SHUT_CHILD = `
dag_id: shut_child
tasks:
  - {task_id: work, operator: noop}
`;

const GUARDED_CHILD = `
dag_id: guarded_child
params:
  force: {type: boolean, default: false, min_role: op}
tasks:
  - {task_id: work, operator: noop}
`;

// One task per child; the others are skipped.
const PARENT_DAG = `
dag_id: parent
params:
  child: {type: string, enum: [open_child, shut_child, guarded_child]}
  force: {type: boolean, default: false}
tasks:
  - task_id: open_child
    operator: trigger_dag_run
    when: "{{ params.child == 'open_child' }}"
    args: {trigger_dag_id: open_child, poke_interval: 1}
  - task_id: shut_child
    operator: trigger_dag_run
    when: "{{ params.child == 'shut_child' }}"
    args: {trigger_dag_id: shut_child, poke_interval: 1}
  - task_id: guarded_child
    operator: trigger_dag_run
    when: "{{ params.child == 'guarded_child' }}"
    args: {trigger_dag_id: guarded_child, conf: {force: "{{ params.force }}"}, poke_interval: 1}
`;

beforeAll(async () => {
  h = await createHarness("trigrights");
  h.writeDag("open_child.yaml", OPEN_CHILD);
  h.writeDag("shut_child.yaml", SHUT_CHILD);
  h.writeDag("guarded_child.yaml", GUARDED_CHILD);
  h.writeDag("parent.yaml", PARENT_DAG);
  await h.sync();
  for (const d of ["parent", "open_child", "shut_child", "guarded_child"]) await h.api.setPaused(d, false);
  h.startRuntime({ workerConcurrency: 1 });
});

afterAll(async () => h?.close());

/** Trigger the parent as a caller of `role` (the REST trigger's check), wait for it to end. */
async function runParent(runId: string, role: RunRole, conf: { child: string; force?: boolean }) {
  await h.api.triggerDagRun("parent", { runId, conf, callerHasRole: (need) => roleReaches(role, need) });
  const run = await h.waitRun("parent", runId);
  const children = await h.db.selectFrom("dag_run").selectAll().where("parent_dag_id", "=", "parent").where("parent_run_id", "=", runId).execute();
  return { state: run.state, task: (await h.tis("parent", runId))[conf.child]!, children };
}

async function whilePaused<T>(dagId: string, fn: () => Promise<T>): Promise<T> {
  await h.api.setPaused(dagId, true);
  try {
    return await fn();
  } finally {
    await h.api.setPaused(dagId, false);
  }
}

test("a run records the role it was triggered with, and its child run carries it", async () => {
  const { state, children } = await runParent("carry-1", "user", { child: "open_child" });
  expect(state).toBe("success");
  expect((await h.db.selectFrom("dag_run").select("trigger_role").where("dag_id", "=", "parent").where("run_id", "=", "carry-1").executeTakeFirstOrThrow()).trigger_role).toBe(
    "user",
  );
  expect(children.map((c) => [c.dag_id, c.state, c.trigger_role])).toEqual([["open_child", "success", "user"]]);
});

test("a parent a user triggered cannot run a paused child DAG, even one that allows triggered runs while paused: the task fails with the reason, and no child run is made", async () => {
  const out = await whilePaused("open_child", () => runParent("user-paused-1", "user", { child: "open_child" }));
  expect(out.state).toBe("failed");
  expect(out.task.state).toBe("failed");
  expect(out.task.error).toContain("cannot trigger DAG 'open_child': DAG 'open_child' is paused");
  expect(out.task.error).toContain("with the role 'user': only an op or above may start it while it is paused");
  expect(out.children).toEqual([]);
});

test("a parent an op triggered runs a paused child DAG whose file sets triggered_runs_while_paused, once, and the DAG stays paused", async () => {
  const out = await whilePaused("open_child", async () => {
    const r = await runParent("op-paused-1", "op", { child: "open_child" });
    expect((await h.api.getDag("open_child")).is_paused).toBe(true);
    return r;
  });
  expect(out.state).toBe("success");
  expect(out.children.map((c) => [c.state, c.run_while_paused, c.trigger_role])).toEqual([["success", true, "op"]]);
});

test("even an op's parent cannot run a paused child DAG whose file does not allow it: the task fails naming the field", async () => {
  const out = await whilePaused("shut_child", () => runParent("op-shut-1", "op", { child: "shut_child" }));
  expect(out.state).toBe("failed");
  expect(out.task.error).toContain("DAG 'shut_child' is paused, and its file does not let triggered runs start while it is paused (triggered_runs_while_paused)");
  expect(out.children).toEqual([]);
});

test("a parent triggered internally (the scheduler, the operator's CLI) runs a paused child DAG that allows it", async () => {
  await whilePaused("open_child", async () => {
    await h.api.triggerDagRun("parent", { runId: "internal-paused-1", conf: { child: "open_child" } });
    expect((await h.waitRun("parent", "internal-paused-1")).state).toBe("success");
  });
});

test("a child param reserved for op (min_role) is refused when the parent's role is user, and no child run is made", async () => {
  const out = await runParent("user-force-1", "user", { child: "guarded_child", force: true });
  expect(out.state).toBe("failed");
  expect(out.task.error).toContain("cannot trigger DAG 'guarded_child': conf.force needs the role 'op' or above");
  expect(out.children).toEqual([]);
});

test("the same child param is accepted when an op triggered the parent", async () => {
  const out = await runParent("op-force-1", "op", { child: "guarded_child", force: true });
  expect(out.state).toBe("success");
  expect(out.children.map((c) => [c.state, c.conf])).toEqual([["success", { force: true }]]);
});
