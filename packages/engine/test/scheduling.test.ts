import { createHarness, type Harness } from "./harness";

let h: Harness;

beforeAll(async () => {
  h = await createHarness("sched");
  h.writeDag(
    "diamond.yaml",
    `
dag_id: diamond
tasks:
  - {task_id: a, operator: sleep, args: {seconds: 0.2}}
  - {task_id: b, operator: sleep, args: {seconds: 0.2}, depends_on: [a]}
  - {task_id: c, operator: sleep, args: {seconds: 0.2}, depends_on: [a]}
  - {task_id: d, operator: noop, depends_on: [b, c]}
`,
  );
  h.writeDag(
    "branch.yaml",
    `
dag_id: branch
params:
  action: {type: string, enum: [create, delete], default: create}
tasks:
  - {task_id: create_vm, operator: noop, when: "{{ params.action == 'create' }}"}
  - {task_id: delete_vm, operator: noop, when: "{{ params.action == 'delete' }}"}
  - {task_id: report, operator: noop, depends_on: [create_vm, delete_vm], trigger_rule: none_failed_min_one_success}
`,
  );
  h.writeDag(
    "retry.yaml",
    `
dag_id: retry
params:
  succeed_on_try: {type: integer, default: 99}
tasks:
  - {task_id: flaky, operator: fail, args: {message: boom, succeed_on_try: "{{ params.succeed_on_try }}"}, retries: 2, retry_delay: 0.1s}
`,
  );
  h.writeDag(
    "timeout.yaml",
    `
dag_id: timeout
tasks:
  - {task_id: slow, operator: sleep, args: {seconds: 60}, execution_timeout: 0.5s}
`,
  );
  h.writeDag(
    "upstream.yaml",
    `
dag_id: upstream
tasks:
  - {task_id: a, operator: fail, args: {message: broken}}
  - {task_id: b, operator: noop, depends_on: [a]}
  - {task_id: c, operator: noop, depends_on: [b]}
  - {task_id: cleanup, operator: noop, depends_on: [a, b, c], trigger_rule: one_failed}
  - {task_id: report, operator: noop, depends_on: [c], trigger_rule: none_failed_min_one_success}
`,
  );
  h.writeDag(
    "outputs.yaml",
    `
dag_id: outputs
tasks:
  - {task_id: produce, operator: shell, args: {argv: [echo, hello]}}
  - {task_id: consume, operator: shell, args: {argv: [echo, "got {{ ti.produce.output.stdout_tail }} for {{ run_id }}"]}, depends_on: [produce]}
`,
  );
  h.writeDag(
    "limited.yaml",
    `
dag_id: limited
max_active_runs: 1
tasks:
  - {task_id: s, operator: sleep, args: {seconds: 0.3}}
`,
  );
  h.writeDag(
    "instant.yaml",
    `
dag_id: instant
params:
  who: {type: string, default: world}
tasks:
  - {task_id: plain, operator: noop, args: {message: "hello from a noop"}}
  - {task_id: templated, operator: noop, args: {message: "hello {{ params.who }}"}, depends_on: [plain]}
  - {task_id: silent, operator: noop, depends_on: [plain]}
`,
  );
  await h.sync();
  for (const d of ["diamond", "branch", "retry", "timeout", "upstream", "outputs", "limited", "instant"]) await h.api.setPaused(d, false);
  h.startRuntime();
});

afterAll(async () => h?.close());

test("a diamond DAG runs in dependency order and succeeds", async () => {
  const run = await h.api.triggerDagRun("diamond", {});
  const done = await h.waitRun("diamond", run.dag_run_id);
  expect(done.state).toBe("success");
  const t = await h.tis("diamond", run.dag_run_id);
  const start = (id: string) => new Date(t[id]!.start_date!).getTime();
  const end = (id: string) => new Date(t[id]!.end_date!).getTime();
  expect(start("b")).toBeGreaterThanOrEqual(end("a"));
  expect(start("c")).toBeGreaterThanOrEqual(end("a"));
  expect(start("d")).toBeGreaterThanOrEqual(Math.max(end("b"), end("c")));
  expect(Object.values(t).every((ti) => ti.state === "success" && ti.try_number === 1)).toBe(true);
});

test("a when-false branch is skipped and its join runs under none_failed_min_one_success", async () => {
  const run = await h.api.triggerDagRun("branch", { conf: { action: "delete" } });
  expect((await h.waitRun("branch", run.dag_run_id)).state).toBe("success");
  const t = await h.tis("branch", run.dag_run_id);
  expect([t.create_vm!.state, t.delete_vm!.state, t.report!.state]).toEqual(["skipped", "success", "success"]);
});

test("fail with retries: 2 goes failed → up_for_retry → failed over tries 1..3, each try logged", async () => {
  const run = await h.api.triggerDagRun("retry", {});
  expect((await h.waitRun("retry", run.dag_run_id)).state).toBe("failed");
  const ti = (await h.tis("retry", run.dag_run_id)).flaky!;
  expect(ti.state).toBe("failed");
  expect(ti.try_number).toBe(3);
  for (const n of [1, 2, 3]) expect((await h.logs("retry", run.dag_run_id, "flaky", n)).join("\n")).toContain("task failed: boom");
  expect((await h.logs("retry", run.dag_run_id, "flaky", 2)).join("\n")).toContain("will retry");
  expect((await h.logs("retry", run.dag_run_id, "flaky", 3)).join("\n")).not.toContain("will retry");
});

test("a flaky task that succeeds on try 3 ends in success with try_number 3", async () => {
  const run = await h.api.triggerDagRun("retry", { conf: { succeed_on_try: 3 } });
  expect((await h.waitRun("retry", run.dag_run_id)).state).toBe("success");
  const ti = (await h.tis("retry", run.dag_run_id)).flaky!;
  expect([ti.state, ti.try_number]).toEqual(["success", 3]);
});

test("execution_timeout kills a sleep and fails the task", async () => {
  const run = await h.api.triggerDagRun("timeout", {});
  expect((await h.waitRun("timeout", run.dag_run_id)).state).toBe("failed");
  const ti = (await h.tis("timeout", run.dag_run_id)).slow!;
  expect(ti.state).toBe("failed");
  expect(ti.error).toMatch(/execution_timeout/);
  expect(ti.duration!).toBeLessThan(30);
});

test("upstream_failed propagates, a one_failed cleanup task runs, and the failed leaf fails the run", async () => {
  const run = await h.api.triggerDagRun("upstream", {});
  expect((await h.waitRun("upstream", run.dag_run_id)).state).toBe("failed");
  const t = await h.tis("upstream", run.dag_run_id);
  expect([t.a!.state, t.b!.state, t.c!.state, t.cleanup!.state, t.report!.state]).toEqual(["failed", "upstream_failed", "upstream_failed", "success", "upstream_failed"]);
});

test("an upstream task's output and the run id reach a downstream task's args through templates", async () => {
  const run = await h.api.triggerDagRun("outputs", { runId: "out-1" });
  expect((await h.waitRun("outputs", run.dag_run_id)).state).toBe("success");
  expect(await h.logs("outputs", "out-1", "consume")).toContain("got hello for out-1");
});

test("a noop runs without a claim and lands from queued in one step; a noop with templated args (it needs the run's params) is claimed first", async () => {
  const run = await h.api.triggerDagRun("instant", { runId: "inst-1", conf: { who: "svc" } });
  expect((await h.waitRun("instant", run.dag_run_id)).state).toBe("success");
  const t = await h.tis("instant", "inst-1");
  expect([t.plain!.state, t.plain!.try_number, t.templated!.state]).toEqual(["success", 1, "success"]);
  const plain = (await h.logs("instant", "inst-1", "plain")).join("\n");
  expect(plain).toMatch(/try 1 ran on .* \(worker .*, operator noop\) without a claim \(instant operator, no side effects\) and succeeded/);
  expect(plain).toContain("hello from a noop");
  const templated = (await h.logs("instant", "inst-1", "templated")).join("\n");
  expect(templated).toMatch(/try 1 of 1 started on /);
  expect(templated).toContain("hello svc");
});

test("a noop that logs nothing writes no log row; its log still reads as its one system line, rebuilt from the task instance", async () => {
  const run = await h.api.triggerDagRun("instant", { runId: "inst-2" });
  expect((await h.waitRun("instant", run.dag_run_id)).state).toBe("success");
  const rows = await h.db.selectFrom("task_log").select("line").where("run_id", "=", "inst-2").where("task_id", "=", "silent").execute();
  expect(rows).toEqual([]);
  const t = (await h.tis("instant", "inst-2")).silent!;
  const log = await h.api.getTaskLog("instant", "inst-2", "silent", 1);
  expect(log.finished).toBe(true);
  expect(log.content).toBe(
    `[${new Date(t.start_date!).toISOString()}] {system} try 1 ran on ${t.hostname} (worker ${t.worker_id}, operator noop) without a claim (instant operator, no side effects) and succeeded\n`,
  );
  // Another try number, or a try that logged lines, gets no rebuilt line.
  await expect(h.api.getTaskLog("instant", "inst-2", "silent", 2)).resolves.toMatchObject({ content: "" });
  expect((await h.logs("instant", "inst-2", "plain")).filter((l) => /without a claim/.test(l))).toHaveLength(1);
});

test("a paused DAG keeps its run queued until it is unpaused", async () => {
  await h.api.setPaused("diamond", true);
  const run = await h.api.triggerDagRun("diamond", {});
  await h.scheduler().reconcileNow();
  const still = await h.db.selectFrom("dag_run").select("state").where("run_id", "=", run.dag_run_id).executeTakeFirstOrThrow();
  expect(still.state).toBe("queued");
  await h.api.setPaused("diamond", false);
  expect((await h.waitRun("diamond", run.dag_run_id)).state).toBe("success");
});

test("max_active_runs: 1 never lets two runs of a DAG run at once", async () => {
  const runs = [];
  for (let i = 0; i < 3; i++) runs.push(await h.api.triggerDagRun("limited", { runId: `lim-${i}` }));
  for (const r of runs) await h.waitRun("limited", r.dag_run_id);
  const rows = await h.db.selectFrom("dag_run").select(["start_date", "end_date"]).where("dag_id", "=", "limited").orderBy("start_date").execute();
  for (let i = 1; i < rows.length; i++) expect(new Date(rows[i]!.start_date!).getTime()).toBeGreaterThanOrEqual(new Date(rows[i - 1]!.end_date!).getTime());
});
