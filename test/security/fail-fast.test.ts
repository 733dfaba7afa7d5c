import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import request from "supertest";
import { createDb } from "../../packages/db/src";
import { createEngineApi, syncDagFolder } from "@svc/engine";
import { defaultOperators } from "@svc/operators";
import { createQueues } from "@svc/queue";
import { createTestDb, freePort, recordingNotifier, type TestDb } from "@svc/testing";
import { createWebUiApp } from "../../services/web-ui/src/app";

const DAG = "dag_id: idem\nparams:\n  n: {type: integer, default: 1}\ntasks:\n  - task_id: a\n    operator: noop\n";
const BEARER = "Bearer tok-failfast";
let tdb: TestDb;
let dagsDir: string;

beforeAll(async () => {
  tdb = await createTestDb("secfail");
  dagsDir = mkdtempSync(path.join(os.tmpdir(), "svc-secfail-"));
  writeFileSync(path.join(dagsDir, "idem.yaml"), DAG);
  await syncDagFolder({ db: tdb.db, dagsDir, catalog: defaultOperators() });
});
afterAll(async () => {
  await tdb?.drop();
  rmSync(dagsDir, { recursive: true, force: true });
});

const appOn = (db: TestDb["db"]) =>
  createWebUiApp({ api: createEngineApi({ db, notifier: recordingNotifier(), dagsDir, catalog: defaultOperators() }), auth: { apiToken: "tok-failfast" } });

test("the same Idempotency-Key on a trigger gives the same run, once; another key a new one", async () => {
  const app = appOn(tdb.db);
  const first = await request(app)
    .post("/api/v1/dags/idem/dagRuns")
    .set("Authorization", BEARER)
    .set("Idempotency-Key", "req-1")
    .send({ conf: { n: 2 } });
  expect(first.status).toBe(200);
  const again = await request(app)
    .post("/api/v1/dags/idem/dagRuns")
    .set("Authorization", BEARER)
    .set("Idempotency-Key", "req-1")
    .send({ conf: { n: 2 } });
  expect(again.status).toBe(200);
  expect(again.body.dag_run_id).toBe(first.body.dag_run_id);
  const other = await request(app).post("/api/v1/dags/idem/dagRuns").set("Authorization", BEARER).set("Idempotency-Key", "req-2").send({});
  expect(other.body.dag_run_id).not.toBe(first.body.dag_run_id);
  const runs = await tdb.db.selectFrom("dag_run").select("run_id").where("dag_id", "=", "idem").execute();
  expect(runs).toHaveLength(2);
});

test("with Postgres unreachable the REST API answers 503 with Retry-After instead of hanging or a bare 500", async () => {
  const dead = createDb(`postgres://postgres@127.0.0.1:${await freePort()}/svc`, { max: 1 });
  try {
    const res = await request(appOn(dead)).post("/api/v1/dags/idem/dagRuns").set("Authorization", BEARER).set("Idempotency-Key", "req-3").send({});
    expect(res.status).toBe(503);
    expect(res.headers["retry-after"]).toBe("5");
    expect(res.body).toMatchObject({ status: 503, title: "Service Unavailable" });
  } finally {
    await dead.destroy();
  }
}, 15_000);

test("with Redis unreachable, adding a job fails (no offline queue) instead of waiting forever", async () => {
  const queues = createQueues({ url: `redis://127.0.0.1:${await freePort()}`, prefix: "svc-failfast" });
  try {
    await expect(queues.intents.add("plan", { flow_id: "x" })).rejects.toThrow();
  } finally {
    await queues.close().catch(() => undefined);
  }
}, 15_000);
