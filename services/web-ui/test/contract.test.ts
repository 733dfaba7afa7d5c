import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import YAML from "yaml";
import { specValidators } from "./oas-schema";
import { createWebFixture, type WebFixture } from "./helpers";

/**
 * Our answers checked against the Airflow 2.10 stable API spec: for every implemented operation,
 * the body must validate against the schema the spec declares for that status code.
 */
const DEFAULT_SPEC = path.resolve(__dirname, "..", "..", "..", "..", "shared", "reference", "airflow-2.10-rest-api-v1.yaml");
/** AIRFLOW_OPENAPI_SPEC when set, else the spec beside the repository (../shared/reference/…). */
const specFile = process.env.AIRFLOW_OPENAPI_SPEC ?? DEFAULT_SPEC;

type Spec = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>;
  components: { schemas: Record<string, unknown> };
};

if (!existsSync(specFile)) {
  // No spec, no contract: a failing test says so rather than a suite that passes without testing.
  test("finds the Airflow 2.10 OpenAPI spec", () => {
    throw new Error(`Airflow 2.10 OpenAPI spec not found at ${specFile}: put it there or set AIRFLOW_OPENAPI_SPEC`);
  });
} else {
  let f: WebFixture;
  let spec: Spec;
  let schemaFor: (specPath: string, method: string, status: number) => (body: unknown) => { ok: boolean; errors: unknown };

  beforeAll(async () => {
    spec = YAML.parse(readFileSync(path.resolve(specFile), "utf8")) as Spec;
    const v = specValidators(spec.components.schemas, "airflow");
    schemaFor = (specPath, method, status) => {
      const responses = spec.paths[specPath]?.[method]?.responses;
      if (!responses) throw new Error(`spec has no ${method.toUpperCase()} ${specPath}`);
      const declared = responses[String(status)];
      if (!declared) throw new Error(`spec declares no ${status} for ${method.toUpperCase()} ${specPath}`);
      const schema = (declared as { $ref?: string }).$ref ? { $ref: "#/components/schemas/Error" } : declared.content?.["application/json"]?.schema;
      const ref = (schema as { $ref?: string } | undefined)?.$ref;
      const validate = ref?.startsWith("#/components/schemas/") ? v.component(ref.split("/").pop()!) : v.inline(schema);
      return (body) => ({ ok: validate(body), errors: validate.errors ?? null });
    };
    f = await createWebFixture("webcontract");
    await f.post("/api/v1/dags/vm_deploy/dagRuns", { dag_run_id: "c1", conf: { vm_name: "x" } }).expect(200);
    await f.db.insertInto("task_log").values({ dag_id: "vm_deploy", run_id: "c1", task_id: "create", try_number: 1, stream: "stdout", line: "hello" }).execute();
    f.writeDag("broken.yaml", "dag_id: broken\ntasks: [\n");
    await f.sync();
  });
  afterAll(async () => {
    await f?.close();
  });

  const RUN = "/api/v1/dags/vm_deploy/dagRuns/c1";
  const OPS: [string, string, number, () => Promise<{ status: number; body: unknown; text: string }>][] = [
    ["/dags", "get", 200, () => f.get("/api/v1/dags")],
    ["/dags", "patch", 200, () => f.patch("/api/v1/dags?dag_id_pattern=vm&update_mask=is_paused", { is_paused: true })],
    ["/dags/{dag_id}", "get", 200, () => f.get("/api/v1/dags/vm_deploy")],
    ["/dags/{dag_id}", "get", 404, () => f.get("/api/v1/dags/nope")],
    ["/dags/{dag_id}", "patch", 200, () => f.patch("/api/v1/dags/vm_deploy?update_mask=is_paused", { is_paused: false })],
    ["/dags/{dag_id}/details", "get", 200, () => f.get("/api/v1/dags/vm_deploy/details")],
    ["/dags/{dag_id}/tasks", "get", 200, () => f.get("/api/v1/dags/vm_deploy/tasks")],
    ["/dags/{dag_id}/dagRuns", "get", 200, () => f.get("/api/v1/dags/vm_deploy/dagRuns")],
    ["/dags/{dag_id}/dagRuns", "post", 200, () => f.post("/api/v1/dags/vm_deploy/dagRuns", { dag_run_id: "c2", conf: { vm_name: "y" } })],
    ["/dags/{dag_id}/dagRuns", "post", 400, () => f.post("/api/v1/dags/vm_deploy/dagRuns", { conf: { vm_name: 5 } })],
    ["/dags/{dag_id}/dagRuns", "post", 409, () => f.post("/api/v1/dags/vm_deploy/dagRuns", { dag_run_id: "c1", conf: { vm_name: "y" } })],
    ["/dags/~/dagRuns/list", "post", 200, () => f.post("/api/v1/dags/~/dagRuns/list", { dag_ids: ["vm_deploy"] })],
    ["/dags/{dag_id}/dagRuns/{dag_run_id}", "get", 200, () => f.get(RUN)],
    ["/dags/{dag_id}/dagRuns/{dag_run_id}", "patch", 200, () => f.patch("/api/v1/dags/vm_deploy/dagRuns/c2", { state: "success" })],
    ["/dags/{dag_id}/dagRuns/{dag_run_id}/setNote", "patch", 200, () => f.patch(`${RUN}/setNote`, { note: "n" })],
    ["/dags/{dag_id}/dagRuns/{dag_run_id}/clear", "post", 200, () => f.post(`${RUN}/clear`, { dry_run: true })],
    ["/dags/{dag_id}/dagRuns/{dag_run_id}/clear", "post", 200, () => f.post(`${RUN}/clear`, { dry_run: false })],
    ["/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances", "get", 200, () => f.get(`${RUN}/taskInstances`)],
    ["/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}", "get", 200, () => f.get(`${RUN}/taskInstances/create`)],
    ["/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}/logs/{task_try_number}", "get", 200, () => f.get(`${RUN}/taskInstances/create/logs/1`)],
    ["/dags/{dag_id}/clearTaskInstances", "post", 200, () => f.post("/api/v1/dags/vm_deploy/clearTaskInstances", { dag_run_id: "c1", only_failed: false })],
    ["/dagSources/{file_token}", "get", 200, async () => f.get(`/api/v1/dagSources/${(await f.get("/api/v1/dags/vm_deploy")).body.file_token}`).set("Accept", "application/json")],
    ["/importErrors", "get", 200, () => f.get("/api/v1/importErrors")],
    ["/importErrors/{import_error_id}", "get", 200, async () => f.get(`/api/v1/importErrors/${(await f.get("/api/v1/importErrors")).body.import_errors[0].import_error_id}`)],
    ["/health", "get", 200, () => f.get("/api/v1/health")],
    ["/version", "get", 200, () => f.get("/api/v1/version")],
  ];

  describe("Airflow 2.10 contract", () => {
    test("the spec validator has teeth: a DAG with a string is_paused and a run with an unknown state fail", () => {
      expect(schemaFor("/dags/{dag_id}", "get", 200)({ dag_id: "x", is_paused: "yes" }).ok).toBe(false);
      expect(schemaFor("/dags/{dag_id}/dagRuns/{dag_run_id}", "get", 200)({ dag_run_id: "r", state: "exploded" }).ok).toBe(false);
    });

    test.each(OPS.map(([p, m, s, call]) => [`${m.toUpperCase()} ${p} ${s}`, p, m, s, call] as const))("%s matches the spec's schema", async (_name, p, m, s, call) => {
      const res = await call();
      expect(res.status).toBe(s);
      // supertest parses application/json only; problem answers are application/problem+json.
      const body = JSON.parse(res.text) as unknown;
      expect(schemaFor(p, m, s)(body)).toEqual({ ok: true, errors: null });
    });
  });
}
