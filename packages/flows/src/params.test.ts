import type { DagDefinition, TaskDefinition } from "@svc/dags";
import { approvalReason } from "./approval";
import { resolveParams } from "./params";

const task = (task_id: string, operator: string): TaskDefinition => ({
  task_id,
  operator,
  args: {},
  depends_on: [],
  trigger_rule: "all_success",
  when: null,
  retries: 0,
  retry_delay_ms: 0,
  retry_exponential_backoff: false,
  max_retry_delay_ms: 0,
  execution_timeout_ms: null,
  doc: null,
});

const dag = (over: Partial<DagDefinition> = {}): DagDefinition => ({
  dag_id: "vm_deployment",
  description: null,
  tags: [],
  owners: [],
  schedule: null,
  max_active_runs: 16,
  examples: [],
  doc_md: null,
  params: {
    action: { type: "string", enum: ["create", "delete"], default: "create" },
    vm_name: { type: "string", pattern: "^[a-z][a-z0-9-]{0,62}$" },
    cpus: { type: "integer", minimum: 1, default: 2 },
  },
  required_params: ["vm_name"],
  tasks: [task("a", "noop")],
  ...over,
});

describe("resolveParams", () => {
  test("explicit params win over extracted ones and defaults are applied", () => {
    const r = resolveParams(dag(), { vm_name: "web01", action: "delete" }, { vm_name: "web02" });
    expect(r).toEqual({ ok: true, params: { vm_name: "web02", action: "delete", cpus: 2 }, missing: [], invalid: [], warnings: [] });
  });

  test("an invalid explicit value is reported by field, an invalid extracted value is dropped with a warning", () => {
    const r = resolveParams(dag(), { cpus: 0 }, { vm_name: "Bad Name" });
    expect(r.ok).toBe(false);
    expect(r.invalid.map((e) => e.field)).toEqual(["vm_name"]);
    expect(r.warnings.join(" ")).toMatch(/cpus dropped/);
  });

  test("an unknown explicit param is invalid and names the allowed ones", () => {
    const r = resolveParams(dag(), {}, { vm_name: "web01", colour: "blue" });
    expect(r.invalid).toEqual([{ field: "colour", message: expect.stringContaining("allowed: action, vm_name, cpus") }]);
  });

  test("a required param nobody supplied is missing, not invalid", () => {
    const r = resolveParams(dag(), { action: "delete" }, {});
    expect(r).toMatchObject({ ok: false, missing: ["vm_name"], invalid: [] });
  });
});

describe("approvalReason", () => {
  const plain = { params: {}, tags: [] as string[], tasks: [task("a", "noop")] };
  test("workflows that may create or delete VMs need approval; others do not", () => {
    expect(approvalReason({ ...plain, tags: ["vm"] })).toMatch(/tagged vm/);
    expect(approvalReason({ ...plain, params: { action: { type: "string" } } })).toMatch(/action param/);
    expect(approvalReason({ ...plain, tasks: [task("make", "vm_create")] })).toMatch(/make uses the vm_create operator/);
    expect(approvalReason({ ...plain, tasks: [task("router", "trigger_dag_run")] })).toMatch(/router triggers runs of other workflows/);
    expect(approvalReason(plain)).toBeNull();
  });
});
