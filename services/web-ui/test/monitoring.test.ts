import request from "supertest";
import { sql } from "kysely";
import { API_COMPAT_VERSION } from "@svc/engine";
import { createWebFixture, expectProblem, type WebFixture } from "./helpers";

let f: WebFixture;
beforeAll(async () => {
  f = await createWebFixture("webmon");
});
afterAll(async () => {
  await f.close();
});

describe("REST import errors, health and version", () => {
  test("GET /importErrors lists broken files; GET /importErrors/{id} returns one or 404", async () => {
    expect((await f.get("/api/v1/importErrors").expect(200)).body).toEqual({ import_errors: [], total_entries: 0 });
    f.writeDag("broken.yaml", "dag_id: broken\ntasks:\n  - task_id: a\n    operator: teleport\n");
    await f.sync();
    const list = await f.get("/api/v1/importErrors?order_by=-timestamp").expect(200);
    expect(list.body.total_entries).toBe(1);
    const e = list.body.import_errors[0];
    expect(e).toMatchObject({ filename: expect.stringMatching(/broken\.yaml$/), stack_trace: expect.stringContaining("teleport"), timestamp: expect.stringMatching(/\+00:00$/) });
    expect((await f.get(`/api/v1/importErrors/${e.import_error_id}`).expect(200)).body).toEqual(e);
    expectProblem(await f.get(`/api/v1/importErrors/${e.import_error_id + 1}`), 404);
    expectProblem(await f.get("/api/v1/importErrors/abc"), 400, /import_error_id/);
  });

  test("GET /health needs no credentials and reports metadatabase and scheduler heartbeat", async () => {
    const before = await request(f.app).get("/api/v1/health").expect(200);
    expect(before.body).toMatchObject({ metadatabase: { status: "healthy" }, scheduler: { status: "unhealthy", latest_scheduler_heartbeat: null } });
    await f.db
      .insertInto("component_heartbeat")
      .values({ component: "scheduler", instance_id: "s1", hostname: "h", pid: 1, started_at: new Date(), last_seen: sql<Date>`now()`, info: "{}" })
      .execute();
    const after = await request(f.app).get("/api/v1/health").expect(200);
    expect(after.body.scheduler).toEqual({ status: "healthy", latest_scheduler_heartbeat: expect.stringMatching(/\+00:00$/) });
  });

  test("GET /version needs no credentials", async () => {
    expect((await request(f.app).get("/api/v1/version").expect(200)).body).toEqual({ version: API_COMPAT_VERSION, git_version: null });
  });
});
