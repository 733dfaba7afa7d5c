import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import request from "supertest";
import { parseDagFile } from "@svc/dags";
import { createEngineApi, syncDagFolder } from "@svc/engine";
import { defaultOperators } from "@svc/operators";
import { createTestDb, recordingNotifier, type TestDb } from "@svc/testing";
import { createWebUiApp } from "../../services/web-ui/src/app";
import { authWithRoles, basicFor } from "./users";

/**
 * Params reserved for an op (min_role): vm_deployment's force_foreign lets vm_delete remove a
 * libvirt domain svc did not create. Through the REST API only an op or admin may set it.
 */
const SETTINGS = { default_image: "debian-test", vm_network: "user" };
const VM_DAG = readFileSync(path.join(__dirname, "..", "..", "dags", "vm_deployment.yaml"), "utf8");

let tdb: TestDb;
let dagsDir: string;
let app: ReturnType<typeof createWebUiApp>;

beforeAll(async () => {
  tdb = await createTestDb("secreserved");
  dagsDir = mkdtempSync(path.join(os.tmpdir(), "svc-reserved-"));
  writeFileSync(path.join(dagsDir, "vm_deployment.yaml"), VM_DAG);
  const catalog = defaultOperators();
  await syncDagFolder({ db: tdb.db, dagsDir, catalog, settings: SETTINGS });
  app = createWebUiApp({ api: createEngineApi({ db: tdb.db, notifier: recordingNotifier(), dagsDir, catalog, settings: SETTINGS }), auth: await authWithRoles() });
});
afterAll(async () => {
  await tdb?.drop();
  rmSync(dagsDir, { recursive: true, force: true });
});

const trigger = (role: "user" | "op", conf: Record<string, unknown>) =>
  request(app).post("/api/v1/dags/vm_deployment/dagRuns").set("Authorization", basicFor(role)).set("Content-Type", "application/json").send({ conf });
const runCount = async () =>
  Number(
    (
      await tdb.db
        .selectFrom("dag_run")
        .select((eb) => eb.fn.countAll().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );

test("vm_deployment reserves force_foreign for an op, and its delete step hands it to vm_delete", async () => {
  const r = parseDagFile("vm_deployment.yaml", VM_DAG, { catalog: defaultOperators(), settings: SETTINGS });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  expect(r.dag.params.force_foreign).toMatchObject({ type: "boolean", default: false, min_role: "op" });
  expect(r.dag.tasks.find((t) => t.task_id === "delete_vm")?.args).toMatchObject({ force_foreign: "{{ params.force_foreign }}" });
});

test("a user setting force_foreign gets 403 naming the param, and no run is created", async () => {
  const before = await runCount();
  const res = await trigger("user", { action: "delete", vm_name: "web01", force_foreign: true });
  expect(res.status).toBe(403);
  expect(res.body).toMatchObject({ status: 403, title: expect.any(String), type: expect.any(String), detail: expect.stringMatching(/conf\.force_foreign needs the role 'op'/) });
  expect(await runCount()).toBe(before);
});

test("a user may give force_foreign's default; an op may set it, and the run carries it", async () => {
  expect((await trigger("user", { action: "delete", vm_name: "web02", force_foreign: false })).status).toBe(200);
  const res = await trigger("op", { action: "delete", vm_name: "web03", force_foreign: true });
  expect(res.status).toBe(200);
  expect(res.body.conf).toMatchObject({ force_foreign: true, vm_name: "web03" });
});

test("a DAG file giving min_role a value that is not a role is an import error", async () => {
  const text = "dag_id: bad_role\nparams:\n  x: { type: boolean, default: false, min_role: root }\ntasks:\n  - {task_id: a, operator: noop}\n";
  const r = parseDagFile("bad_role.yaml", text, { catalog: defaultOperators(), settings: SETTINGS });
  expect(r.ok).toBe(false);
  if (!r.ok) expect(r.problems.map((p) => p.message).join(" ")).toMatch(/params\.x\.min_role: 'root' is not one of user, op, admin/);
});
