import { BUILTIN_OPERATORS } from "@svc/engine/operators";
import { defaultOperators } from "./all";
import { HOST_OPERATOR_ARGS } from "./host/args-by-name";
import { operatorCatalog } from "./catalog";

const registry = defaultOperators();
const catalog = operatorCatalog();

test("the catalogue names every operator defaultOperators() runs, and no other", () => {
  expect(catalog.names!()).toEqual(registry.names());
  for (const name of registry.names()) expect(catalog.has(name)).toBe(true);
  expect(catalog.has("no_such_operator")).toBe(false);
});

test("each host operator's arguments are checked by the very schema the operator parses them with", () => {
  expect(HOST_OPERATOR_ARGS.map(([name]) => name).sort()).toEqual(registry.names().filter((n) => !BUILTIN_OPERATORS.some((o) => o.name === n)));
  for (const [name, schema] of HOST_OPERATOR_ARGS) expect(registry.get(name)!.args).toBe(schema);
});

test("the catalogue finds the same problems in a task's literal args as the registry: unknown keys, missing and bad values, templates left for run time", () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ["vm_create", { name: "Bad_Name", image: "debian-12", memory_mb: 32 }],
    ["vm_create", { name: "web1", image: "{{ params.image }}", colour: "blue" }],
    ["ssh", { argv: [] }],
    ["ansible_playbook", { playbook: "site.yml", settings: ["not_a_setting"] }],
    ["http_check", { url: "ftp://127.0.0.1/" }],
    ["host_check", { min_disk_gb: -1, host: "Not A Host" }],
    ["vm_wait_ssh", { name: "web1", interval_s: 0 }],
    ["trigger_dag_run", {}],
    ["sleep", { seconds: "{{ params.s }}" }],
    ["no_such_operator", {}],
  ];
  for (const [name, args] of cases) expect(catalog.checkArgs(name, args)).toEqual(registry.checkArgs(name, args));
  expect(catalog.checkArgs("vm_create", { name: "Bad_Name", image: "debian-12" }).length).toBeGreaterThan(0);
});
