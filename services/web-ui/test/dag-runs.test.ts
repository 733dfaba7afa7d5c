import { createWebFixture, expectProblem, type WebFixture } from "./helpers";

let f: WebFixture;
beforeAll(async () => {
  f = await createWebFixture("webruns");
});
afterAll(async () => {
  await f.close();
});

const RUNS = "/api/v1/dags/vm_deploy/dagRuns";

describe("REST /api/v1/dags/{dag_id}/dagRuns", () => {
  test("POST triggers a queued run (conf validated, defaults applied) and answers Airflow's DAGRun", async () => {
    const res = await f.post(RUNS, { dag_run_id: "web-1", logical_date: "2024-05-01T10:00:00Z", conf: { vm_name: "web01" }, note: "hi" }).expect(200);
    expect(res.body).toMatchObject({
      dag_run_id: "web-1",
      dag_id: "vm_deploy",
      state: "queued",
      run_type: "manual",
      external_trigger: true,
      conf: { vm_name: "web01", cpus: 2 },
      note: "hi",
      logical_date: "2024-05-01T10:00:00.000+00:00",
      execution_date: "2024-05-01T10:00:00.000+00:00",
    });
    expect(f.notifier.calls).toContain("dag:vm_deploy");
  });

  test("POST with conf failing the params schema is a 400 naming the field, and creates nothing", async () => {
    const res = await f.post(RUNS, { dag_run_id: "bad", conf: { vm_name: "Not Valid" } });
    expectProblem(res, 400, /vm_name/);
    expect(JSON.parse(res.text).fields).toEqual([{ field: "vm_name", message: expect.stringContaining("pattern") }]);
    expectProblem(await f.post(RUNS, { conf: {} }), 400, /vm_name: is required/);
    expectProblem(await f.get(`${RUNS}/bad`), 404);
  });

  test("POST with a duplicate dag_run_id is a 409 problem", async () => {
    expectProblem(await f.post(RUNS, { dag_run_id: "web-1", conf: { vm_name: "x" } }), 409, /already exists/);
  });

  test("POST rejects malformed bodies naming the field, unknown DAGs with 404, broken DAG files with 400", async () => {
    expectProblem(await f.post(RUNS, { conf: "nope" }), 400, /conf/);
    expectProblem(await f.post(RUNS, { logical_date: "tomorrow", conf: { vm_name: "x" } }), 400, /logical_date/);
    expectProblem(await f.post(RUNS, { dag_run_id: "a b", conf: { vm_name: "x" } }), 400, /dag_run_id/);
    const bad = await f.post(RUNS).set("Content-Type", "application/json").send("{not json");
    expectProblem(bad, 400, /not valid JSON/);
    expectProblem(await f.post("/api/v1/dags/nope/dagRuns", {}), 404);
    f.writeDag("hello.yaml", "dag_id: hello\ntasks: [broken\n");
    await f.sync();
    expectProblem(await f.post("/api/v1/dags/hello/dagRuns", {}), 400, /import errors/);
  });

  test("GET lists runs with filters, order_by and paging; ~ lists every DAG's runs", async () => {
    for (const [id, day] of [
      ["web-2", "02"],
      ["web-3", "03"],
    ]) {
      await f.post(RUNS, { dag_run_id: id, logical_date: `2024-05-${day}T00:00:00Z`, conf: { vm_name: "x" } }).expect(200);
    }
    const all = await f.get(`${RUNS}?order_by=-execution_date`).expect(200);
    expect(all.body.dag_runs.map((r: { dag_run_id: string }) => r.dag_run_id)).toEqual(["web-3", "web-2", "web-1"]);
    expect(all.body.total_entries).toBe(3);
    const page = await f.get(`${RUNS}?order_by=dag_run_id&limit=1&offset=2`).expect(200);
    expect(page.body).toMatchObject({ total_entries: 3, dag_runs: [{ dag_run_id: "web-3" }] });
    expect((await f.get(`${RUNS}?execution_date_gte=2024-05-02T00:00:00Z`).expect(200)).body.total_entries).toBe(2);
    expect((await f.get("/api/v1/dags/~/dagRuns?state=queued&state=running").expect(200)).body.total_entries).toBe(3);
    expectProblem(await f.get(`${RUNS}?execution_date_gte=yesterday`), 400, /execution_date_gte/);
    expectProblem(await f.get(`${RUNS}?state=bogus`), 400, /state/);
    expectProblem(await f.get("/api/v1/dags/nope/dagRuns"), 404);
  });

  test("POST /dags/~/dagRuns/list filters by dag_ids and states with page_limit", async () => {
    const res = await f.post("/api/v1/dags/~/dagRuns/list", { dag_ids: ["vm_deploy"], states: ["queued"], page_limit: 2, order_by: "dag_run_id" }).expect(200);
    expect(res.body).toMatchObject({ total_entries: 3, dag_runs: [{ dag_run_id: "web-1" }, { dag_run_id: "web-2" }] });
    expectProblem(await f.post("/api/v1/dags/~/dagRuns/list", { page_limit: 0 }), 400, /page_limit/);
    expectProblem(await f.post("/api/v1/dags/~/dagRuns/list", { dag_idz: ["x"] }), 400, /dag_idz/);
  });

  test("GET, PATCH (state), setNote and DELETE one run", async () => {
    expect((await f.get(`${RUNS}/web-1`).expect(200)).body.state).toBe("queued");
    expect((await f.patch(`${RUNS}/web-1/setNote`, { note: "checked" }).expect(200)).body.note).toBe("checked");
    const marked = await f.patch(`${RUNS}/web-1`, { state: "failed" }).expect(200);
    expect(marked.body.state).toBe("failed");
    expect(marked.body.end_date).not.toBeNull();
    expect(f.notifier.calls.some((c) => c.startsWith("run:vm_deploy:web-1:"))).toBe(true);
    expectProblem(await f.patch(`${RUNS}/web-1`, { state: "running" }), 400, /state/);
    expectProblem(await f.patch(`${RUNS}/nope`, { state: "success" }), 404);
    expectProblem(await f.patch(`${RUNS}/web-1/setNote`, {}), 400, /note/);
    await f.del(`${RUNS}/web-3`).expect(204);
    expectProblem(await f.get(`${RUNS}/web-3`), 404, /web-3/);
    expectProblem(await f.del(`${RUNS}/web-3`), 404);
  });

  test("POST .../clear: dry_run (the default) lists task instances; dry_run=false re-queues the run", async () => {
    const dry = await f.post(`${RUNS}/web-1/clear`, {}).expect(200);
    expect(dry.body.total_entries).toBe(3);
    expect(dry.body.task_instances.map((t: { task_id: string }) => t.task_id)).toEqual(["create", "report", "wait"]);
    const done = await f.post(`${RUNS}/web-1/clear`, { dry_run: false }).expect(200);
    expect(done.body).toMatchObject({ dag_run_id: "web-1", state: "queued", end_date: null });
    expectProblem(await f.post(`${RUNS}/web-1/clear`, { dry_run: "no" }), 400, /dry_run/);
    expectProblem(await f.post(`${RUNS}/nope/clear`, { dry_run: false }), 404);
  });
});
