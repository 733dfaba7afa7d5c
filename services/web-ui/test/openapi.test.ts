import request from "supertest";
import { API_ROUTES } from "../src/routes";
import { createWebFixture, type WebFixture } from "./helpers";
import { specValidators } from "./oas-schema";

let f: WebFixture;
let doc: {
  paths: Record<string, Record<string, { parameters: { name: string; in: string }[]; requestBody?: unknown; responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, unknown> };
};
beforeAll(async () => {
  f = await createWebFixture("webopenapi");
  doc = (await request(f.app).get("/api/v1/openapi.json").expect(200)).body;
});
afterAll(async () => {
  await f.close();
});

describe("OpenAPI document", () => {
  test("documents every operation of the route table with its path and query parameters and request body", () => {
    for (const r of API_ROUTES) {
      const op = doc.paths[r.path]?.[r.method];
      expect(op).toBeDefined();
      const documented = op!.parameters.map((p) => `${p.in}:${p.name}`).sort();
      const declared = [...Object.keys(r.params?.shape ?? {}).map((k) => `path:${k}`), ...Object.keys(r.query?.shape ?? {}).map((k) => `query:${k}`)].sort();
      expect(documented).toEqual(declared);
      expect(Boolean(op!.requestBody)).toBe(Boolean(r.body));
    }
    expect(Object.keys(doc.paths)).toHaveLength(new Set(API_ROUTES.map((r) => r.path)).size);
  });

  test("our answers validate against the response components of our own document", async () => {
    await f.post("/api/v1/dags/vm_deploy/dagRuns", { dag_run_id: "r", conf: { vm_name: "x" } }).expect(200);
    const checks: [string, string][] = [
      ["/api/v1/dags", "DAGCollection"],
      ["/api/v1/dags/vm_deploy/details", "DAGDetail"],
      ["/api/v1/dags/vm_deploy/tasks", "TaskCollection"],
      ["/api/v1/dags/vm_deploy/dagRuns", "DAGRunCollection"],
      ["/api/v1/dags/vm_deploy/dagRuns/r/taskInstances", "TaskInstanceCollection"],
      ["/api/v1/importErrors", "ImportErrorCollection"],
      ["/api/v1/health", "HealthInfo"],
      ["/api/v1/version", "VersionInfo"],
    ];
    const validators = specValidators(doc.components.schemas, "own");
    for (const [url, component] of checks) {
      const validate = validators.component(component);
      const body = (await f.get(url).expect(200)).body;
      expect({ url, ok: validate(body), errors: validate.errors ?? null }).toEqual({ url, ok: true, errors: null });
    }
  });
});
