import { sql } from "kysely";
import { createWebFixture, expectProblem, type WebFixture } from "./helpers";

let f: WebFixture;
beforeAll(async () => {
  f = await createWebFixture("webdags");
});
afterAll(async () => {
  await f.close();
});

describe("REST /api/v1/dags", () => {
  test("GET /dags lists DAGs with Airflow's fields and total_entries", async () => {
    const res = await f.get("/api/v1/dags").expect(200);
    expect(res.headers["content-type"]).toMatch(/application\/json/);
    expect(res.body.total_entries).toBe(2);
    expect(res.body.dags.map((d: { dag_id: string }) => d.dag_id)).toEqual(["hello", "vm_deploy"]);
    expect(res.body.dags[0]).toMatchObject({
      dag_id: "hello",
      is_paused: true,
      is_active: true,
      is_subdag: false,
      root_dag_id: null,
      schedule_interval: { __type: "CronExpression", value: "@daily" },
      timetable_description: "At 00:00",
      tags: [{ name: "demo" }],
    });
  });

  test("GET /dags filters (tags repeated, paused, dag_id_pattern) and trims fields", async () => {
    expect((await f.get("/api/v1/dags?tags=nope&tags=infra").expect(200)).body.dags.map((d: { dag_id: string }) => d.dag_id)).toEqual(["vm_deploy"]);
    expect((await f.get("/api/v1/dags?paused=false").expect(200)).body.total_entries).toBe(0);
    expect((await f.get("/api/v1/dags?dag_id_pattern=hell").expect(200)).body.dags).toHaveLength(1);
    expect((await f.get("/api/v1/dags?fields=dag_id&fields=is_paused").expect(200)).body.dags[0]).toEqual({ dag_id: "hello", is_paused: true });
  });

  test("GET /dags paginates with limit/offset and caps limit at 100", async () => {
    // 103 more DAG rows, copies of hello: enough to exceed the page cap.
    await sql`insert into dag (dag_id, fileloc, file_token, description, tags, owners, schedule, params, definition, hash, last_parsed_at)
      select 'bulk_' || lpad(g::text, 3, '0'), fileloc, file_token, description, tags, owners, schedule, params, definition, hash, last_parsed_at
      from dag, generate_series(1, 103) g where dag_id = 'hello'`.execute(f.db);
    const capped = await f.get("/api/v1/dags?limit=1000").expect(200);
    expect(capped.body.dags).toHaveLength(100);
    expect(capped.body.total_entries).toBe(105);
    const page = await f.get("/api/v1/dags?limit=2&offset=1&order_by=-dag_id").expect(200);
    expect(page.body.dags.map((d: { dag_id: string }) => d.dag_id)).toEqual(["hello", "bulk_103"]);
    expectProblem(await f.get("/api/v1/dags?limit=0"), 400, /limit/);
    expectProblem(await f.get("/api/v1/dags?limit=abc"), 400, /limit/);
    expectProblem(await f.get("/api/v1/dags?paused=maybe"), 400, /paused/);
    expectProblem(await f.get("/api/v1/dags?order_by=nope"), 400, /order_by/);
    await sql`delete from dag where dag_id like 'bulk_%'`.execute(f.db);
  });

  test("GET /dags/{dag_id} and /details answer, and unknown DAGs are a 404 problem", async () => {
    expect((await f.get("/api/v1/dags/vm_deploy").expect(200)).body).toMatchObject({ dag_id: "vm_deploy", owners: ["ops"], has_import_errors: false });
    const details = (await f.get("/api/v1/dags/vm_deploy/details").expect(200)).body;
    expect(details.params.vm_name).toMatchObject({ __class: "airflow.models.param.Param", value: null, schema: { type: "string" } });
    expect(details.params.cpus.value).toBe(2);
    expectProblem(await f.get("/api/v1/dags/nope"), 404, /nope/);
    expectProblem(await f.get("/api/v1/dags/nope/details"), 404);
  });

  test("PATCH /dags/{dag_id} toggles is_paused (update_mask=is_paused) and tells the scheduler on unpause", async () => {
    const res = await f.patch("/api/v1/dags/vm_deploy?update_mask=is_paused", { is_paused: false }).expect(200);
    expect(res.body).toMatchObject({ dag_id: "vm_deploy", is_paused: false });
    expect(f.notifier.calls).toContain("dag:vm_deploy:schedule");
    expectProblem(await f.patch("/api/v1/dags/vm_deploy?update_mask=description", { is_paused: true }), 400, /is_paused/);
    expectProblem(await f.patch("/api/v1/dags/vm_deploy", { is_paused: "yes" }), 400, /is_paused/);
    expectProblem(await f.patch("/api/v1/dags/nope", { is_paused: true }), 404);
  });

  test("PATCH /dags pauses by dag_id_pattern (~ for all) and requires the pattern", async () => {
    const res = await f.patch("/api/v1/dags?dag_id_pattern=~&update_mask=is_paused", { is_paused: true }).expect(200);
    expect(res.body.total_entries).toBe(2);
    expect(res.body.dags.every((d: { is_paused: boolean }) => d.is_paused)).toBe(true);
    expectProblem(await f.patch("/api/v1/dags", { is_paused: true }), 400, /dag_id_pattern/);
  });

  test("GET /dags/{dag_id}/tasks lists tasks with dependencies", async () => {
    const res = await f.get("/api/v1/dags/vm_deploy/tasks").expect(200);
    expect(res.body.tasks.map((t: { task_id: string }) => t.task_id)).toEqual(["create", "report", "wait"]);
    expect(res.body.tasks.find((t: { task_id: string }) => t.task_id === "wait")).toMatchObject({ downstream_task_ids: ["report"], retries: 1 });
    expectProblem(await f.get("/api/v1/dags/nope/tasks"), 404);
  });

  test("GET /dagSources/{file_token} serves the file as text/plain or JSON, 404 for unknown tokens, 406 otherwise", async () => {
    const token = (await f.get("/api/v1/dags/hello").expect(200)).body.file_token as string;
    const text = await f.get(`/api/v1/dagSources/${token}`).set("Accept", "text/plain").expect(200);
    expect(text.headers["content-type"]).toMatch(/text\/plain/);
    expect(text.text).toContain("dag_id: hello");
    const json = await f.get(`/api/v1/dagSources/${token}`).set("Accept", "application/json").expect(200);
    expect(json.body.content).toContain("dag_id: hello");
    expectProblem(await f.get("/api/v1/dagSources/Zm9v"), 404);
    expect((await f.get(`/api/v1/dagSources/${token}`).set("Accept", "image/png")).status).toBe(406);
  });

  test("unknown API paths are a 404 problem", async () => {
    expectProblem(await f.get("/api/v1/nothing/here"), 404, /No such endpoint/);
  });
});
