import { validateParams } from "./validate-params";

describe("validateParams", () => {
  const schemas = {
    vm_name: { type: "string" as const, pattern: "^[a-z][a-z0-9-]{0,62}$" },
    cpus: { type: "integer" as const, minimum: 1, maximum: 128, default: 2 },
    domain: { type: "string" as const, default: "{{ settings.domain }}" },
  };

  test("values that pass their property schema are kept", () => {
    expect(validateParams(schemas, { vm_name: "web01", cpus: 4 })).toEqual({ params: { vm_name: "web01", cpus: 4 }, warnings: [], errors: [] });
  });

  test("a failing value is dropped and reported as a warning naming the param", () => {
    const r = validateParams(schemas, { vm_name: "Web_01", cpus: 500 });
    expect(r.params).toEqual({});
    expect(r.warnings).toHaveLength(2);
    expect(r.warnings[0]).toMatch(/vm_name/);
    expect(r.warnings[1]).toMatch(/cpus=500/);
  });

  test("undeclared params and values with shell syntax are dropped", () => {
    const r = validateParams(schemas, { rogue: 1, domain: "x.com; reboot" });
    expect(r.params).toEqual({});
    expect(r.warnings.join(" ")).toMatch(/rogue.*not declare.*domain.*shell/);
  });

  test("a templated default does not stop a literal value from validating", () => {
    expect(validateParams(schemas, { domain: "lab.example.com" }).params).toEqual({ domain: "lab.example.com" });
  });
});
