import { createWebFixture, expectProblem, type WebFixture } from "./helpers";

let f: WebFixture;
beforeAll(async () => {
  f = await createWebFixture("webtis");
  await f.post("/api/v1/dags/vm_deploy/dagRuns", { dag_run_id: "r1", conf: { vm_name: "x" } }).expect(200);
  // The run got as far as `wait`, which failed on its second try after logging.
  const set = (task: string, patch: Record<string, unknown>) => f.db.updateTable("task_instance").set(patch).where("run_id", "=", "r1").where("task_id", "=", task).execute();
  await set("create", { state: "success", try_number: 1, start_date: new Date(), end_date: new Date(), duration: 1.5 });
  await set("wait", { state: "failed", try_number: 2 });
  await set("report", { state: "upstream_failed" });
  await f.db.updateTable("dag_run").set({ state: "failed", end_date: new Date() }).where("run_id", "=", "r1").execute();
  await f.db
    .insertInto("task_log")
    .values(["waiting", "gave up <script>"].map((line) => ({ dag_id: "vm_deploy", run_id: "r1", task_id: "wait", try_number: 2, stream: "stderr" as const, line })))
    .execute();
});
afterAll(async () => {
  await f.close();
});

const TIS = "/api/v1/dags/vm_deploy/dagRuns/r1/taskInstances";

describe("REST task instances, logs and clearTaskInstances", () => {
  test("GET taskInstances lists the run's task instances with Airflow's fields, filterable by state", async () => {
    const res = await f.get(TIS).expect(200);
    expect(res.body.total_entries).toBe(3);
    const create = res.body.task_instances.find((t: { task_id: string }) => t.task_id === "create");
    expect(create).toMatchObject({ dag_id: "vm_deploy", dag_run_id: "r1", state: "success", try_number: 1, duration: 1.5, pool: "default_pool", operator: "noop", map_index: -1 });
    const failed = await f.get(`${TIS}?state=failed&state=upstream_failed`).expect(200);
    expect(failed.body.task_instances.map((t: { task_id: string }) => t.task_id)).toEqual(["report", "wait"]);
    expect((await f.get(`${TIS}?limit=1&offset=1`).expect(200)).body).toMatchObject({ total_entries: 3, task_instances: [{ task_id: "report" }] });
    expect((await f.get("/api/v1/dags/~/dagRuns/~/taskInstances?state=none").expect(200)).body.total_entries).toBe(0);
    expectProblem(await f.get(`${TIS}?state=melted`), 400, /state/);
    expectProblem(await f.get("/api/v1/dags/vm_deploy/dagRuns/nope/taskInstances"), 404);
  });

  test("GET one task instance, 404 for unknown tasks", async () => {
    expect((await f.get(`${TIS}/wait`).expect(200)).body).toMatchObject({ task_id: "wait", state: "failed", try_number: 2, max_tries: 1 });
    expectProblem(await f.get(`${TIS}/nope`), 404, /nope/);
  });

  test("GET logs answers JSON by default and text/plain when asked; the token returns only newer lines", async () => {
    const json = await f.get(`${TIS}/wait/logs/2`).expect(200);
    expect(json.body.content).toContain("{stderr} waiting");
    expect(json.body.continuation_token).toEqual(expect.any(String));
    expect(json.headers["x-log-finished"]).toBe("true");
    const text = await f.get(`${TIS}/wait/logs/2?full_content=true`).set("Accept", "text/plain").expect(200);
    expect(text.headers["content-type"]).toMatch(/text\/plain/);
    expect(text.text).toContain("gave up <script>");
    const next = await f.get(`${TIS}/wait/logs/2?token=${json.body.continuation_token}`).expect(200);
    expect(next.body.content).toBe("");
    expect((await f.get(`${TIS}/wait/logs/1`).expect(200)).body.content).toBe("");
    expectProblem(await f.get(`${TIS}/wait/logs/0`), 400, /task_try_number/);
    expectProblem(await f.get(`${TIS}/wait/logs/x`), 400, /task_try_number/);
    expectProblem(await f.get(`${TIS}/wait/logs/2?token=bogus`), 400, /token/);
    expectProblem(await f.get(`${TIS}/nope/logs/1`), 404);
  });

  test("POST clearTaskInstances: dry run by default; a real clear resets failed tasks and re-queues the run", async () => {
    const dry = await f.post("/api/v1/dags/vm_deploy/clearTaskInstances", { dag_run_id: "r1" }).expect(200);
    expect(dry.body.task_instances.map((t: { task_id: string }) => t.task_id)).toEqual(["report", "wait"]);
    expect(dry.body.task_instances[0]).toMatchObject({ dag_id: "vm_deploy", dag_run_id: "r1", execution_date: expect.stringMatching(/\+00:00$/) });
    const real = await f.post("/api/v1/dags/vm_deploy/clearTaskInstances", { dag_run_id: "r1", task_ids: ["wait"], include_downstream: true, dry_run: false }).expect(200);
    expect(real.body.task_instances).toHaveLength(2);
    expect((await f.get(`${TIS}/wait`).expect(200)).body).toMatchObject({ state: null, try_number: 2, max_tries: 3 });
    expect((await f.get("/api/v1/dags/vm_deploy/dagRuns/r1").expect(200)).body.state).toBe("queued");
    expectProblem(await f.post("/api/v1/dags/vm_deploy/clearTaskInstances", { task_ids: ["nope"] }), 400, /task_ids/);
    expectProblem(await f.post("/api/v1/dags/vm_deploy/clearTaskInstances", { only_faild: true }), 400, /only_faild/);
    expectProblem(await f.post("/api/v1/dags/vm_deploy/clearTaskInstances", { task_ids: [] }), 400, /task_ids/);
    expectProblem(await f.post("/api/v1/dags/nope/clearTaskInstances", {}), 404);
  });
});
