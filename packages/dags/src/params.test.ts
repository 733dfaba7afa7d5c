import { ParamsInvalidError } from "@svc/errors";
import { testCatalog } from "../test/helpers/test-catalog";
import { parseDagFile } from "./parse-dag-file";
import { assertValidParams, paramsInvalidError, validateParams } from "./params";
import type { DagDefinition } from "./types";

function dagWith(paramsYaml: string): DagDefinition {
  const r = parseDagFile("/dags/p.yaml", `dag_id: p\nparams:\n${paramsYaml}\ntasks: [{task_id: a, operator: noop}]\n`, {
    catalog: testCatalog,
    settings: { domain: "lab.example.com" },
  });
  if (!r.ok) throw new Error(r.problems.map((p) => p.message).join("\n"));
  return r.dag;
}

const dag = dagWith(`  action: {type: string, enum: [create, delete], default: create}
  vm_name: {type: string, pattern: "^[a-z][a-z0-9-]{0,62}$"}
  cpus: {type: integer, minimum: 1, maximum: 64, default: 2}
  memory_gb: {type: number, default: 2.5}
  start: {type: boolean, default: true}
  disks: {type: array, items: {type: integer, minimum: 1}, default: [10]}
  labels: {type: object, additionalProperties: {type: string}, default: {}}
  owner_email: {type: string, format: email, default: "ops@example.com"}
  domain: {type: string, default: "{{ settings.domain }}"}`);

describe("validateParams", () => {
  it("applies defaults and returns the params without touching conf", () => {
    const conf = { vm_name: "web01" };
    const r = validateParams(dag, conf);
    expect(r).toEqual({
      ok: true,
      params: { vm_name: "web01", action: "create", cpus: 2, memory_gb: 2.5, start: true, disks: [10], labels: {}, owner_email: "ops@example.com", domain: "lab.example.com" },
    });
    expect(conf).toEqual({ vm_name: "web01" });
  });

  it("keeps values that are given", () => {
    const r = validateParams(dag, { vm_name: "db1", action: "delete", cpus: 8, disks: [20, 40], labels: { env: "dev" } });
    expect(r.ok && r.params).toMatchObject({ action: "delete", cpus: 8, disks: [20, 40], labels: { env: "dev" } });
  });

  it("gives every default object its own copy", () => {
    const a = validateParams(dag, { vm_name: "a" });
    const b = validateParams(dag, { vm_name: "b" });
    if (!a.ok || !b.ok) throw new Error("expected valid params");
    (a.params.disks as number[]).push(99);
    expect(b.params.disks).toEqual([10]);
  });

  it.each<[string, Record<string, unknown>, { field: string; message: string }]>([
    ["a required param is missing", {}, { field: "vm_name", message: "is required" }],
    ["a pattern does not match", { vm_name: "Web_01" }, { field: "vm_name", message: 'must match pattern "^[a-z][a-z0-9-]{0,62}$"' }],
    ["a value is not in the enum", { vm_name: "a", action: "reboot" }, { field: "action", message: "must be one of create, delete" }],
    ["an integer is a string", { vm_name: "a", cpus: "4" }, { field: "cpus", message: "must be integer" }],
    ["an integer is fractional", { vm_name: "a", cpus: 1.5 }, { field: "cpus", message: "must be integer" }],
    ["a number is below its minimum", { vm_name: "a", cpus: 0 }, { field: "cpus", message: "must be >= 1" }],
    ["a number is above its maximum", { vm_name: "a", cpus: 65 }, { field: "cpus", message: "must be <= 64" }],
    ["a boolean is a string", { vm_name: "a", start: "yes" }, { field: "start", message: "must be boolean" }],
    ["a list item is wrong", { vm_name: "a", disks: [10, 0] }, { field: "disks[1]", message: "must be >= 1" }],
    ["an object value is wrong", { vm_name: "a", labels: { env: 1 } }, { field: "labels.env", message: "must be string" }],
    ["a format does not match", { vm_name: "a", owner_email: "not-an-email" }, { field: "owner_email", message: 'must match format "email"' }],
    [
      "an unknown key is given",
      { vm_name: "a", colour: "red" },
      { field: "colour", message: "unknown param (allowed: action, vm_name, cpus, memory_gb, start, disks, labels, owner_email, domain)" },
    ],
  ])("names the field when %s", (_what, conf, expected) => {
    const r = validateParams(dag, conf);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors).toContainEqual(expected);
  });

  it("reports every failing field at once", () => {
    const r = validateParams(dag, { action: "reboot", cpus: "x", extra: 1 });
    expect(r.ok ? [] : r.errors.map((e) => e.field).sort()).toEqual(["action", "cpus", "extra", "vm_name"]);
  });

  it.each([[[1, 2]], ["text"], [5]])("rejects conf that is not an object: %p", (conf) => {
    expect(validateParams(dag, conf)).toEqual({ ok: false, errors: [{ field: "conf", message: "must be an object of params" }] });
  });

  it("treats a missing conf as empty", () => {
    expect(validateParams(dagWith("  a: {type: string, default: x}"), undefined)).toEqual({ ok: true, params: { a: "x" } });
  });

  it("reuses the compiled validator for DAGs with the same params", () => {
    const a = dagWith("  n: {type: integer, default: 1}");
    const b = dagWith("  n: {type: integer, default: 1}");
    expect(validateParams(a, { n: 2 })).toEqual({ ok: true, params: { n: 2 } });
    expect(validateParams(b, { n: "x" })).toEqual({ ok: false, errors: [{ field: "n", message: "must be integer" }] });
  });

  it("resolves settings templates left in defaults of definitions built elsewhere", () => {
    const raw: DagDefinition = { ...dagWith("  d: {type: string, default: x}"), params: { d: { type: "string", default: "{{ settings.domain }}" } } };
    expect(validateParams(raw, {}, { domain: "corp.example" })).toEqual({ ok: true, params: { d: "corp.example" } });
  });
});

describe("paramsInvalidError / assertValidParams", () => {
  it("builds a ParamsInvalidError listing each field", () => {
    const e = paramsInvalidError("vm_deployment", [
      { field: "vm_name", message: "is required" },
      { field: "cpus", message: "must be integer" },
    ]);
    expect(e).toBeInstanceOf(ParamsInvalidError);
    expect(e.code).toBe("params_invalid");
    expect(e.message).toBe("invalid params for DAG 'vm_deployment': vm_name: is required; cpus: must be integer");
    expect(e.fields).toEqual([
      { field: "vm_name", message: "is required" },
      { field: "cpus", message: "must be integer" },
    ]);
  });

  it("throws for invalid params and returns resolved params otherwise", () => {
    expect(() => assertValidParams(dag, { vm_name: "BAD" })).toThrow(ParamsInvalidError);
    expect(assertValidParams(dag, { vm_name: "ok" }).cpus).toBe(2);
  });
});
