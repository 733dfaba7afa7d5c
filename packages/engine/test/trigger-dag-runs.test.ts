import { parentChildHarness, type Harness } from "./harness";

// trigger_dag_runs on ONE worker slot, as trigger-dag-run.test.ts: the waiting parent task frees its
// slot, or the children would never run.
let h: Harness;

const CHILD_DAG = `
dag_id: child
params:
  name: {type: string, default: x}
  outcome: {type: string, enum: [ok, fail], default: ok}
tasks:
  - {task_id: warm_up, operator: sleep, args: {seconds: 1.2}}
  - {task_id: ok, operator: noop, depends_on: [warm_up], when: "{{ params.outcome == 'ok' }}"}
  - task_id: broken
    operator: shell
    args: {argv: [sh, -c, "echo no room for $0; exit 3", "{{ params.name }}"]}
    depends_on: [warm_up]
    when: "{{ params.outcome == 'fail' }}"
`;

// The list comes from an upstream task's output, as lab_deployment's member deletes do.
const PARENT_DAG = `
dag_id: parent
params:
  confs: {type: array, items: {type: object}, default: []}
tasks:
  - {task_id: list, operator: noop}
  - task_id: run_children
    operator: trigger_dag_runs
    depends_on: [list]
    args: {trigger_dag_id: child, confs: "{{ params.confs }}", poke_interval: 1}
  - {task_id: after, operator: noop, depends_on: [run_children]}
`;

beforeAll(async () => {
  h = await parentChildHarness("trigdags", CHILD_DAG, PARENT_DAG);
});

afterAll(async () => h?.close());

const childRunsOf = (runId: string) => h.db.selectFrom("dag_run").selectAll().where("parent_dag_id", "=", "parent").where("parent_run_id", "=", runId).orderBy("run_id").execute();

test("one child run per conf, each with its conf, all succeeded before the parent task succeeds; its output lists them", async () => {
  const confs = [{ name: "web01" }, { name: "web02" }, { name: "db01" }];
  await h.api.triggerDagRun("parent", { runId: "three-1", conf: { confs } });
  expect((await h.waitRun("parent", "three-1")).state).toBe("success");
  const children = await childRunsOf("three-1");
  expect(children.map((c) => [c.state, (c.conf as { name: string }).name, c.parent_task_id])).toEqual([
    ["success", "web01", "run_children"],
    ["success", "web02", "run_children"],
    ["success", "db01", "run_children"],
  ]);
  const t = await h.tis("parent", "three-1");
  expect([t.run_children!.state, t.run_children!.try_number, t.after!.state]).toEqual(["success", 1, "success"]);
  expect(t.run_children!.output).toEqual({ trigger_dag_id: "child", runs: children.map((c) => ({ trigger_run_id: c.run_id, state: "success" })) });
  expect(children.map((c) => c.run_id)).toEqual([0, 1, 2].map((i) => expect.stringMatching(new RegExp(`^triggered__parent\\.run_children__try1__[0-9a-f]{12}\\.${i}$`))));
});

test("one failed child: the others still run to success, then the parent task fails naming the failed child and its reason", async () => {
  await h.api.triggerDagRun("parent", { runId: "onefail-1", conf: { confs: [{ name: "web01" }, { name: "web02", outcome: "fail" }] } });
  expect((await h.waitRun("parent", "onefail-1")).state).toBe("failed");
  const [ok, bad] = await childRunsOf("onefail-1");
  expect([ok!.state, bad!.state]).toEqual(["success", "failed"]);
  const t = await h.tis("parent", "onefail-1");
  expect([t.run_children!.state, t.after!.state]).toEqual(["failed", "upstream_failed"]);
  expect(t.run_children!.error).toContain(
    `1 of 2 triggered run(s) of DAG child failed: ${bad!.run_id}: task broken failed: command exited with 3; last log line: no room for web02`,
  );
});

test("an empty list triggers nothing and the parent task succeeds at once", async () => {
  await h.api.triggerDagRun("parent", { runId: "none-1", conf: { confs: [] } });
  expect((await h.waitRun("parent", "none-1")).state).toBe("success");
  expect(await childRunsOf("none-1")).toEqual([]);
  expect((await h.tis("parent", "none-1")).run_children!.output).toEqual({ trigger_dag_id: "child", runs: [] });
});

test("a conf the child's params reject fails the parent task with the child's validation message", async () => {
  await h.api.triggerDagRun("parent", { runId: "badconf-1", conf: { confs: [{ outcome: "maybe" }] } });
  expect((await h.waitRun("parent", "badconf-1")).state).toBe("failed");
  expect((await h.tis("parent", "badconf-1")).run_children!.error).toMatch(/^cannot trigger DAG 'child': conf does not match the params of DAG 'child': outcome: /);
});
