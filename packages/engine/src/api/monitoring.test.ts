import { sql } from "kysely";
import { NotFoundError } from "@svc/errors";
import { API_COMPAT_VERSION } from "./health";
import { createApiFixture, type ApiFixture } from "./test-helpers";

let f: ApiFixture;
beforeAll(async () => {
  f = await createApiFixture("apimon");
});
afterAll(async () => {
  await f.close();
});

const heartbeat = (instance: string, ageSeconds: number, info: Record<string, unknown> = {}) =>
  f.db
    .insertInto("component_heartbeat")
    .values({
      component: "scheduler",
      instance_id: instance,
      hostname: "h",
      pid: 1,
      started_at: new Date(),
      info: JSON.stringify(info),
      last_seen: sql<Date>`now() - make_interval(secs => ${ageSeconds})`,
    })
    .execute();

describe("engine API: health, version, import errors, reserialize", () => {
  test("health: the scheduler is unhealthy without a recent heartbeat and healthy with one", async () => {
    expect(await f.api.health()).toEqual({
      metadatabase: { status: "healthy" },
      scheduler: { status: "unhealthy", latest_scheduler_heartbeat: null },
      triggerer: { status: null, latest_triggerer_heartbeat: null },
      dag_processor: { status: "unhealthy", latest_dag_processor_heartbeat: null },
    });
    await heartbeat("old", 120);
    const stale = await f.api.health();
    expect(stale.scheduler.status).toBe("unhealthy");
    expect(stale.scheduler.latest_scheduler_heartbeat).toMatch(/\+00:00$/);
    await heartbeat("new", 1);
    expect((await f.api.health()).scheduler.status).toBe("healthy");
  });

  test("health: the DAG processor is healthy only once a live scheduler reports its first DAG-folder pass done", async () => {
    await f.db.deleteFrom("component_heartbeat").execute();
    await heartbeat("starting", 1, { leader: true });
    expect((await f.api.health()).dag_processor).toEqual({ status: "unhealthy", latest_dag_processor_heartbeat: null });
    await heartbeat("gone", 120, { leader: true, dags_processed: true });
    expect((await f.api.health()).dag_processor.status).toBe("unhealthy");
    await heartbeat("done", 1, { leader: true, dags_processed: true });
    const h = await f.api.health();
    expect(h.scheduler.status).toBe("healthy");
    expect(h.dag_processor.status).toBe("healthy");
    expect(h.dag_processor.latest_dag_processor_heartbeat).toMatch(/\+00:00$/);
  });

  test("health: each hypervisor host a live worker serves is healthy only while some worker reaches it, with each worker's reason", async () => {
    const worker = (id: string, ageSeconds: number, hosts: Record<string, unknown>) =>
      f.db
        .insertInto("component_heartbeat")
        .values({
          component: "worker",
          instance_id: id,
          hostname: "h",
          pid: 1,
          started_at: new Date(),
          info: JSON.stringify({ running: 0, hosts }),
          last_seen: sql<Date>`now() - make_interval(secs => ${ageSeconds})`,
        })
        .execute();
    await worker("w-a", 1, { a: { up: true, probedAt: "2026-11-26T00:00:00.000Z" }, b: { up: false, reason: "connect ECONNREFUSED 127.0.0.1:2299" } });
    await worker("w-b", 1, { b: { up: false, reason: "connect ECONNREFUSED 127.0.0.1:2299" } });
    await worker("w-old", 300, { c: { up: true } });
    const hosts = (await f.api.health()).hypervisor_hosts;
    expect(Object.keys(hosts ?? {}).sort()).toEqual(["a", "b"]);
    expect(hosts?.a).toEqual({ status: "healthy", workers: [{ worker: "w-a", up: true, reason: null, probed_at: "2026-11-26T00:00:00.000Z" }] });
    expect(hosts?.b?.status).toBe("unhealthy");
    expect(hosts?.b?.workers.map((w) => [w.worker, w.up, w.reason])).toEqual([
      ["w-a", false, "connect ECONNREFUSED 127.0.0.1:2299"],
      ["w-b", false, "connect ECONNREFUSED 127.0.0.1:2299"],
    ]);
  });

  test("version reports the Airflow API level with our version as local part", () => {
    expect(f.api.version()).toEqual({ version: API_COMPAT_VERSION, git_version: null });
    expect(API_COMPAT_VERSION).toMatch(/^2\.10\.\d+\+svc\./);
  });

  test("reserialize picks up a new file at once and records broken files as import errors", async () => {
    f.writeDag("third.yaml", "dag_id: third\ntasks:\n  - task_id: a\n    operator: noop\n");
    f.writeDag("broken.yaml", "dag_id: broken\ntasks:\n  - task_id: a\n    operator: no_such_operator\n");
    const report = await f.api.reserialize();
    expect(report.added).toEqual(["third"]);
    expect(report.errors.map((e) => e.filename)).toEqual([expect.stringMatching(/broken\.yaml$/)]);
    expect((await f.api.getDag("third")).is_paused).toBe(true);

    const list = await f.api.listImportErrors();
    expect(list.total_entries).toBe(1);
    const e = list.import_errors[0]!;
    expect(e.filename).toMatch(/broken\.yaml$/);
    expect(e.stack_trace).toContain("no_such_operator");
    expect(await f.api.getImportError(e.import_error_id)).toEqual(e);
    await expect(f.api.getImportError(e.import_error_id + 100)).rejects.toBeInstanceOf(NotFoundError);
    await expect(f.api.listImportErrors({ order_by: "stacktrace_secret" })).rejects.toThrow(/order_by/);
  });
});
