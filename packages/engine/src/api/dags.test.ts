import { rmSync } from "node:fs";
import path from "node:path";
import { BadRequestError, DagHasImportErrorsError, DagNotFoundError, NotFoundError } from "@svc/errors";
import { builtinOperators } from "../../test/fixtures/operators";
import { createEngineApi } from "./engine-api";
import { createApiFixture, type ApiFixture } from "./test-helpers";

let f: ApiFixture;
beforeAll(async () => {
  f = await createApiFixture("apidags");
});
afterAll(async () => {
  await f.close();
});
beforeEach(() => f.notifier.clear());

describe("engine API: DAGs", () => {
  test("listDags returns every active DAG in Airflow's DAG shape, ordered by dag_id, with total_entries", async () => {
    const out = await f.api.listDags();
    expect(out.total_entries).toBe(2);
    expect(out.dags.map((d) => d.dag_id)).toEqual(["hello", "vm_deploy"]);
    const hello = out.dags[0]!;
    expect(hello).toMatchObject({
      dag_display_name: "hello",
      root_dag_id: null,
      is_paused: true,
      is_active: true,
      is_subdag: false,
      schedule_interval: { __type: "CronExpression", value: "0 6 * * *" },
      timetable_description: "At 06:00",
      tags: [{ name: "demo" }],
      has_import_errors: false,
      max_active_runs: 16,
    });
    expect(hello.last_parsed_time).toMatch(/\+00:00$/);
    expect(out.dags[1]!.schedule_interval).toBeNull();
    expect(out.dags[1]!.owners).toEqual(["ops"]);
  });

  test("listDags filters by tags, paused state and a case-insensitive dag_id substring, and orders descending", async () => {
    expect((await f.api.listDags({ tags: ["infra"] })).dags.map((d) => d.dag_id)).toEqual(["vm_deploy"]);
    expect((await f.api.listDags({ tags: ["nope", "demo"] })).dags.map((d) => d.dag_id)).toEqual(["hello"]);
    expect((await f.api.listDags({ dag_id_pattern: "VM_" })).dags.map((d) => d.dag_id)).toEqual(["vm_deploy"]);
    expect((await f.api.listDags({ paused: false })).total_entries).toBe(0);
    expect((await f.api.listDags({ order_by: "-dag_id" })).dags.map((d) => d.dag_id)).toEqual(["vm_deploy", "hello"]);
  });

  test("listDags pages with limit/offset, caps limit at the maximum page limit and rejects bad paging and ordering", async () => {
    const capped = createEngineApi({ db: f.db, notifier: f.notifier, dagsDir: f.dagsDir, catalog: builtinOperators(), maxPageLimit: 1 });
    const page = await capped.listDags({ limit: 50, offset: 1 });
    expect(page.dags.map((d) => d.dag_id)).toEqual(["vm_deploy"]);
    expect(page.total_entries).toBe(2);
    await expect(f.api.listDags({ limit: 0 })).rejects.toThrow(/limit/);
    await expect(f.api.listDags({ offset: -1 })).rejects.toThrow(/offset/);
    await expect(f.api.listDags({ order_by: "secret_column" })).rejects.toBeInstanceOf(BadRequestError);
  });

  test("getDag and getDagDetails answer known DAGs (details with Airflow-style params) and 404 unknown ones", async () => {
    expect((await f.api.getDag("vm_deploy")).description).toBe("Deploy a VM");
    const d = await f.api.getDagDetails("vm_deploy");
    expect(d.params.cpus).toEqual({ __class: "airflow.models.param.Param", value: 2, description: null, schema: { type: "integer", minimum: 1 } });
    expect(d.params.vm_name).toMatchObject({ value: null, description: "VM name", schema: { type: "string" } });
    expect(d.timezone).toBe("UTC");
    await expect(f.api.getDag("nope")).rejects.toBeInstanceOf(DagNotFoundError);
    await expect(f.api.getDagDetails("nope")).rejects.toBeInstanceOf(DagNotFoundError);
  });

  test("setPaused unpauses and tells the scheduler; pausing does not; unknown DAG is a 404", async () => {
    expect((await f.api.setPaused("hello", false)).is_paused).toBe(false);
    expect(f.notifier.calls).toEqual(["dag:hello:schedule"]);
    f.notifier.clear();
    expect((await f.api.setPaused("hello", true)).is_paused).toBe(true);
    expect(f.notifier.calls).toEqual([]);
    await expect(f.api.setPaused("nope", false)).rejects.toBeInstanceOf(DagNotFoundError);
  });

  test("setPausedByPattern updates the DAGs matching the pattern, ~ meaning all", async () => {
    const some = await f.api.setPausedByPattern("vm", false);
    expect(some.dags.map((d) => [d.dag_id, d.is_paused])).toEqual([["vm_deploy", false]]);
    const all = await f.api.setPausedByPattern("~", true);
    expect(all.total_entries).toBe(2);
    expect(all.dags.every((d) => d.is_paused)).toBe(true);
    expect(f.notifier.calls).toEqual(["dag:vm_deploy:schedule"]);
  });

  test("listTasks gives each task's upstream and downstream ids and retry settings", async () => {
    const { tasks, total_entries } = await f.api.listTasks("vm_deploy");
    expect(total_entries).toBe(4);
    const wait = tasks.find((t) => t.task_id === "wait")!;
    expect(wait).toMatchObject({ upstream_task_ids: ["create"], downstream_task_ids: ["configure"], retries: 2, trigger_rule: "all_success", operator_name: "noop" });
    expect(wait.retry_delay).toEqual({ __type: "TimeDelta", days: 0, seconds: 30, microseconds: 0 });
    expect(tasks.map((t) => t.task_id)).toEqual(["configure", "create", "report", "wait"]);
  });

  test("getDagSource returns the file behind a DAG's file_token and refuses other tokens", async () => {
    const dag = await f.api.getDag("hello");
    const src = await f.api.getDagSource(dag.file_token);
    expect(src.content).toContain("dag_id: hello");
    await expect(f.api.getDagSource(Buffer.from("../../etc/passwd").toString("base64url"))).rejects.toBeInstanceOf(NotFoundError);
    await expect(f.api.getDagSource("not a token")).rejects.toBeInstanceOf(NotFoundError);
  });

  test("listDagDefinitions and getDagDefinition give the stored definitions in svc's shape with the DAG's state; unknown DAGs are a 404", async () => {
    await f.api.setPaused("vm_deploy", false);
    const all = await f.api.listDagDefinitions();
    expect(all.map((d) => [d.dag_id, d.is_paused, d.is_active, d.has_import_errors])).toEqual([
      ["hello", true, true, false],
      ["vm_deploy", false, true, false],
    ]);
    const vm = all[1]!;
    expect(vm.definition).toMatchObject({ dag_id: "vm_deploy", description: "Deploy a VM", tags: ["vm", "infra"], required_params: ["vm_name"] });
    expect(vm.definition.params.cpus).toEqual({ type: "integer", default: 2, minimum: 1 });
    expect(vm.definition.tasks.map((t) => t.task_id)).toEqual(["create", "wait", "configure", "report"]);
    expect(await f.api.getDagDefinition("vm_deploy")).toEqual(vm);
    await expect(f.api.getDagDefinition("nope")).rejects.toBeInstanceOf(DagNotFoundError);
    await f.api.setPaused("vm_deploy", true);
  });

  test("a DAG whose file breaks keeps its definition, reports has_import_errors and cannot be triggered by hand", async () => {
    f.writeDag("hello.yaml", "dag_id: hello\ntasks: [oops\n");
    await f.sync();
    expect((await f.api.getDag("hello")).has_import_errors).toBe(true);
    expect(await f.api.getDagDefinition("hello")).toMatchObject({ has_import_errors: true, definition: { dag_id: "hello", schedule: "0 6 * * *" } });
    await expect(f.api.triggerDagRun("hello")).rejects.toBeInstanceOf(DagHasImportErrorsError);
    // The scheduler's cron runs go on with the last good definition.
    const scheduled = await f.api.triggerDagRun("hello", { runType: "scheduled", logicalDate: "2024-01-01T06:00:00Z" });
    expect(scheduled).toMatchObject({ dag_run_id: "scheduled__2024-01-01T06:00:00.000+00:00", run_type: "scheduled", external_trigger: false });
    rmSync(path.join(f.dagsDir, "hello.yaml"));
    await f.sync();
    expect((await f.api.listDags()).dags.map((d) => d.dag_id)).toEqual(["vm_deploy"]);
    expect((await f.api.listDags({ only_active: false })).total_entries).toBe(2);
    expect((await f.api.listDagDefinitions()).map((d) => d.dag_id)).toEqual(["vm_deploy"]);
    expect((await f.api.listDagDefinitions({ onlyActive: false })).map((d) => [d.dag_id, d.is_active])).toEqual([
      ["hello", false],
      ["vm_deploy", true],
    ]);
  });
});
