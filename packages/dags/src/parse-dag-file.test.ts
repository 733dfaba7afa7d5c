import { testCatalog } from "../test/helpers/test-catalog";
import { parseDagFile, type ParseDagOptions } from "./parse-dag-file";
import { formatProblems } from "./problems";
import type { DagFileProblem } from "./types";

const opts: ParseDagOptions = { catalog: testCatalog, settings: { domain: "lab.example.com", cluster_name: "ocp", admin_user: "admin" } };

function problemsOf(yaml: string): DagFileProblem[] {
  const r = parseDagFile("/dags/t.yaml", yaml, opts);
  if (r.ok) throw new Error(`expected import errors, got a DAG: ${JSON.stringify(r.dag)}`);
  return r.problems;
}

describe("parseDagFile: a valid file", () => {
  const yaml = `dag_id: vm_deployment
description: Create or delete a VM
tags: [vm]
params:
  action: {type: string, enum: [create, delete], default: create}
  vm_name: {type: string, pattern: "^[a-z][a-z0-9-]{0,62}$"}
  fqdn_suffix: {type: string, default: ".{{ settings.domain }}"}
examples: ["create a vm called web01"]
tasks:
  - {task_id: create_vm, operator: vm_create, args: {name: "{{ params.vm_name }}", cpus: 2}, when: "{{ params.action == 'create' }}", retries: 2, retry_delay: 0.1}
  - {task_id: delete_vm, operator: vm_delete, args: {name: "{{ params.vm_name }}"}, when: "params.action == 'delete'", execution_timeout: 1h30m}
  - {task_id: report, operator: noop, depends_on: [create_vm, delete_vm], trigger_rule: none_failed_min_one_success, args: {message: "{{ ti.create_vm.output.ip | default('-') }}"}}
`;

  it("normalises fields, applies defaults and resolves settings in param defaults", () => {
    const r = parseDagFile("/dags/vm.yaml", yaml, opts);
    if (!r.ok) throw new Error(formatProblems(r.problems));
    expect(r.fileloc).toBe("/dags/vm.yaml");
    expect(r.hash).toMatch(/^[0-9a-f]{64}$/);
    const { dag } = r;
    expect(dag).toMatchObject({ dag_id: "vm_deployment", schedule: null, max_active_runs: 16, owners: [], doc_md: null, required_params: ["vm_name"] });
    expect(dag.params.fqdn_suffix!.default).toBe(".lab.example.com");
    expect(dag.tasks.map((t) => t.task_id)).toEqual(["create_vm", "delete_vm", "report"]);
    expect(dag.tasks[0]).toEqual({
      task_id: "create_vm",
      operator: "vm_create",
      args: { name: "{{ params.vm_name }}", cpus: 2 },
      depends_on: [],
      trigger_rule: "all_success",
      when: "{{ params.action == 'create' }}",
      retries: 2,
      retry_delay_ms: 100,
      retry_exponential_backoff: false,
      max_retry_delay_ms: 86_400_000,
      execution_timeout_ms: null,
      doc: null,
    });
    expect(dag.tasks[1]!.execution_timeout_ms).toBe(5_400_000);
    expect(dag.tasks[1]!.retry_delay_ms).toBe(30_000);
  });

  it("gives the same hash for the same content and a different one after an edit", () => {
    const a = parseDagFile("/dags/a.yaml", yaml, opts);
    const b = parseDagFile("/dags/b.yaml", `# comment only\n${yaml}`, opts);
    const c = parseDagFile("/dags/a.yaml", yaml.replace("retries: 2", "retries: 3"), opts);
    expect(a.ok && b.ok && c.ok).toBe(true);
    if (a.ok && b.ok && c.ok) {
      expect(b.hash).toBe(a.hash);
      expect(c.hash).not.toBe(a.hash);
    }
  });

  it("resolves param defaults from whatever settings the caller passes", () => {
    const r = parseDagFile("/dags/s.yaml", `dag_id: s\nparams:\n  zone: {type: string, default: "{{ settings.zone }}"}\ntasks: [{task_id: a, operator: noop}]\n`, {
      ...opts,
      settings: { zone: "eu-1" },
    });
    expect(r.ok && r.dag.params.zone!.default).toBe("eu-1");
  });
});

const T = (extra: string) => `dag_id: d\ntasks:\n${extra}`;

// [what, yaml, expected message fragment, expected line]
const cases: [string, string, string, number | undefined][] = [
  ["YAML syntax error", "dag_id: d\ntasks: [\n  {task_id: a\n", "YAML syntax:", 4],
  ["duplicate YAML key", "dag_id: d\ndag_id: e\ntasks: []\n", "YAML syntax: Map keys must be unique", 2],
  ["several YAML documents", "dag_id: d\ntasks: [{task_id: a, operator: noop}]\n---\ndag_id: e\n", "YAML syntax:", 3],
  ["unknown YAML tag", "dag_id: !python/object d\ntasks: [{task_id: a, operator: noop}]\n", "YAML syntax: Unresolved tag", 1],
  ["empty file", "# nothing\n", "file is empty", 1],
  ["top level is a list", "- a\n- b\n", "file: must be object, got a list", 1],
  ["missing dag_id", "tasks: [{task_id: a, operator: noop}]\n", "file: missing required field 'dag_id'", 1],
  ["missing tasks", "dag_id: d\n", "file: missing required field 'tasks'", 1],
  ["no tasks", "dag_id: d\ntasks: []\n", "tasks: must NOT have fewer than 1 items", 2],
  ["bad dag_id", "dag_id: 1-bad id\ntasks: [{task_id: a, operator: noop}]\n", "dag_id: invalid value '1-bad id': letters, digits", 1],
  ["unknown top-level field with hint", "dag_id: d\nscheduel: '@daily'\ntasks: [{task_id: a, operator: noop}]\n", "file: unknown field 'scheduel' (did you mean 'schedule'?)", 2],
  ["unknown task field with hint", T("  - task_id: a\n    operator: noop\n    retry: 2\n"), "tasks[0]: unknown field 'retry' (did you mean 'retries'?)", 5],
  ["task without operator", T("  - task_id: a\n"), "tasks[0]: missing required field 'operator'", 3],
  ["wrong type", T("  - {task_id: a, operator: noop, retries: many}\n"), 'tasks[0].retries: must be integer, got string "many"', 3],
  ["negative retries", T("  - {task_id: a, operator: noop, retries: -1}\n"), "tasks[0].retries: must be >= 0", 3],
  ["bad trigger rule", T("  - {task_id: a, operator: noop, trigger_rule: all_sucess}\n"), "'all_sucess' is not one of all_success, all_failed", 3],
  ["bad task_id", T("  - {task_id: create-vm, operator: noop}\n"), "tasks[0].task_id: invalid value 'create-vm'", 3],
  ["dunder task_id", T("  - {task_id: __proto__, operator: noop}\n"), "tasks[0].task_id: invalid value '__proto__'", 3],
  ["bad param name", "dag_id: d\nparams:\n  1st: {type: string}\ntasks: [{task_id: a, operator: noop}]\n", "params: invalid name '1st'", 3],
  ["bad param type", "dag_id: d\nparams:\n  n: {type: int}\ntasks: [{task_id: a, operator: noop}]\n", "params.n.type: 'int' is not one of string, integer", 3],
  ["duplicate tag", "dag_id: d\ntags: [a, b, a]\ntasks: [{task_id: a, operator: noop}]\n", "tags: duplicate entry 'a'", 2],
  ["bad duration text", T("  - task_id: a\n    operator: noop\n    retry_delay: 5 minutes\n"), "tasks[0].retry_delay: invalid duration '5 minutes'", 5],
  ["duration too long", T("  - task_id: a\n    operator: noop\n    execution_timeout: 400d\n"), 'task a: execution_timeout: invalid duration "400d": longer than 366 days', 5],
  ["zero timeout", T("  - task_id: a\n    operator: noop\n    execution_timeout: 0\n"), "task a: execution_timeout: must be greater than 0", 5],
  ["bad cron", "dag_id: d\nschedule: '61 * * * *'\ntasks: [{task_id: a, operator: noop}]\n", "schedule: invalid cron expression '61 * * * *'", 2],
  ["cron with 6 fields", "dag_id: d\nschedule: '0 0 * * * *'\ntasks: [{task_id: a, operator: noop}]\n", "expected 5 fields", 2],
  ["unknown preset", "dag_id: d\nschedule: '@fortnightly'\ntasks: [{task_id: a, operator: noop}]\n", "schedule: unknown schedule preset '@fortnightly'", 2],
  ["interval text schedule", "dag_id: d\nschedule: every 6 hours\ntasks: [{task_id: a, operator: noop}]\n", "schedule: invalid cron expression 'every 6 hours'", 2],
  ["duplicate task id", T("  - {task_id: a, operator: noop}\n  - {task_id: a, operator: noop}\n"), "tasks[1].task_id: duplicate task_id 'a' (also tasks[0])", 4],
  [
    "unknown depends_on target",
    T("  - {task_id: create_vm, operator: noop}\n  - {task_id: b, operator: noop, depends_on: [create_mv]}\n"),
    "task b: depends_on: unknown task 'create_mv' (did you mean 'create_vm'?)",
    4,
  ],
  [
    "cycle",
    T("  - {task_id: a, operator: noop, depends_on: [c]}\n  - {task_id: b, operator: noop, depends_on: [a]}\n  - {task_id: c, operator: noop, depends_on: [b]}\n"),
    "cycle in task dependencies: a → c → b → a",
    3,
  ],
  ["self dependency", T("  - {task_id: a, operator: noop, depends_on: [a]}\n"), "cycle in task dependencies: a → a", 3],
  ["unknown operator", T("  - {task_id: a, operator: vm_creat, args: {name: x}}\n"), "task a: unknown operator 'vm_creat' (did you mean 'vm_create'?)", 3],
  ["missing operator arg", T("  - {task_id: a, operator: vm_delete}\n"), "task a: args: missing required argument 'name'", 3],
  ["unknown operator arg", T("  - task_id: a\n    operator: noop\n    args:\n      mesage: hi\n"), "task a: args: unknown argument 'mesage'", 6],
  ["bad literal arg", T("  - {task_id: a, operator: vm_create, args: {name: x, cpus: two}}\n"), "task a: args: argument 'cpus': expected number", 3],
  ["template syntax error", T("  - task_id: a\n    operator: noop\n    args: {message: '{{ params.x '}\n"), "task a: args.message: template syntax error", 5],
  [
    "template unknown variable",
    T("  - task_id: a\n    operator: noop\n    args:\n      message: '{{ parms.x }}'\n"),
    "task a: args.message: unknown variable 'parms' (did you mean 'params'?)",
    6,
  ],
  [
    "template unknown param",
    "dag_id: d\nparams: {vm_name: {type: string}}\ntasks:\n  - {task_id: a, operator: noop, args: {message: '{{ params.vmname }}'}}\n",
    "unknown param 'vmname' (did you mean 'vm_name'?) (params: vm_name)",
    4,
  ],
  ["template settings in args", T("  - {task_id: a, operator: noop, args: {message: '{{ settings.domain }}'}}\n"), "unknown variable 'settings'", 3],
  [
    "ti of a task that is not upstream",
    T("  - {task_id: a, operator: noop}\n  - {task_id: b, operator: noop, args: {message: '{{ ti.c.output }}'}}\n  - {task_id: c, operator: noop, depends_on: [b]}\n"),
    "'ti.c.output': task 'c' is not upstream of 'b'",
    4,
  ],
  [
    "ti without output",
    T("  - {task_id: a, operator: noop}\n  - {task_id: b, operator: noop, depends_on: [a], args: {message: '{{ ti.a.state }}'}}\n"),
    "'ti.a.state': use ti.a.output",
    4,
  ],
  [
    "ti in a nested arg",
    T("  - {task_id: a, operator: noop}\n  - task_id: b\n    operator: ssh\n    args:\n      host: x\n      command: '{{ ti.zz.output }}'\n"),
    "task b: args.command: 'ti.zz.output': task 'zz' is not upstream of 'b'",
    8,
  ],
  ["string has no fields", T("  - {task_id: a, operator: noop, args: {message: '{{ ds.year }}'}}\n"), "'ds.year': ds is a string and has no fields", 3],
  [
    "when on unknown param",
    "dag_id: d\nparams: {action: {type: string, default: create}}\ntasks:\n  - task_id: a\n    operator: noop\n    when: \"{{ params.actoin == 'create' }}\"\n",
    "task a: when: unknown param 'actoin' (did you mean 'action'?)",
    6,
  ],
  [
    "when using output of a task that is not upstream",
    T("  - {task_id: a, operator: noop}\n  - {task_id: b, operator: noop, when: '{{ ti.a.output.ok }}'}\n"),
    "task b: when: 'ti.a.output.ok': task 'a' is not upstream of 'b' (add it to depends_on)",
    4,
  ],
  [
    "when with mixed text",
    "dag_id: d\nparams: {x: {type: integer, default: 1}}\ntasks:\n  - {task_id: a, operator: noop, when: '{{ params.x }} > 0'}\n",
    "task a: when: must be a single expression",
    4,
  ],
  ["when syntax error", T("  - {task_id: a, operator: noop, when: 'params.x =='}\n"), "task a: when: template syntax error", 3],
  [
    "params schema Ajv cannot compile",
    "dag_id: d\nparams:\n  n: {type: integer, minimum: low}\ntasks: [{task_id: a, operator: noop}]\n",
    "params.n: invalid JSON Schema: minimum must be number",
    3,
  ],
  [
    "params schema unknown keyword",
    "dag_id: d\nparams:\n  n: {type: string, patern: '^a'}\ntasks: [{task_id: a, operator: noop}]\n",
    'params.n: invalid JSON Schema: unknown keyword: "patern"',
    3,
  ],
  [
    "params schema unknown format",
    "dag_id: d\nparams:\n  n: {type: string, format: ip-address}\ntasks: [{task_id: a, operator: noop}]\n",
    'params.n: invalid JSON Schema: unknown format "ip-address"',
    3,
  ],
  [
    "default that fails its own schema",
    "dag_id: d\nparams:\n  n:\n    type: integer\n    minimum: 1\n    default: 0\ntasks: [{task_id: a, operator: noop}]\n",
    "params.n.default: 0 does not match the param's schema: must be >= 1",
    6,
  ],
  [
    "unknown settings key",
    "dag_id: d\nparams:\n  d: {type: string, default: '{{ settings.domian }}'}\ntasks: [{task_id: a, operator: noop}]\n",
    "params.d.default: unknown setting 'domian' (did you mean 'domain'?) (known: admin_user, cluster_name, domain)",
    3,
  ],
  [
    "param default using params",
    "dag_id: d\nparams:\n  d: {type: string, default: '{{ params.x }}'}\ntasks: [{task_id: a, operator: noop}]\n",
    "params.d.default: 'params.x': param defaults can only use {{ settings.<key> }}",
    3,
  ],
  ["deep nesting", `dag_id: d\ntasks:\n  - {task_id: a, operator: noop, args: {message: ${"[".repeat(80)}${"]".repeat(80)}}}\n`, "data nested deeper than 64 levels", undefined],
];

describe("parseDagFile: import errors", () => {
  it.each(cases)("%s", (_what, yaml, fragment, line) => {
    const problems = problemsOf(yaml);
    const hit = problems.find((p) => p.message.includes(fragment));
    if (!hit) throw new Error(`no problem contains ${JSON.stringify(fragment)}; got:\n${formatProblems(problems)}`);
    expect(hit.line).toBe(line);
  });

  it("reports every problem of a file at once, ordered by line", () => {
    const problems = problemsOf(
      T("  - {task_id: a, operator: nope}\n  - {task_id: b, operator: noop, depends_on: [x], args: {message: '{{ foo }}'}}\n  - {task_id: a, operator: noop}\n"),
    );
    expect(problems.map((p) => p.line)).toEqual([3, 4, 4, 5]);
    expect(formatProblems(problems)).toBe(
      [
        "line 3: task a: unknown operator 'nope'",
        "line 4: task b: depends_on: unknown task 'x'",
        "line 4: task b: args.message: unknown variable 'foo' (templates can use params, run_id, dag_id, logical_date, ds, run_note (args only), ti.<upstream task>.output)",
        "line 5: tasks[2].task_id: duplicate task_id 'a' (also tasks[0])",
      ].join("\n"),
    );
  });

  it("accepts a when that reads an upstream task's output", () => {
    const r = parseDagFile(
      "/dags/t.yaml",
      T('  - {task_id: a, operator: noop}\n  - {task_id: b, operator: noop, depends_on: [a], when: "{{ ti.a.output.ok | default(false) }}"}\n'),
      opts,
    );
    expect(r.ok ? "" : formatProblems(r.problems)).toBe("");
  });

  it("accepts ti references to indirect upstream tasks", () => {
    const r = parseDagFile(
      "/dags/t.yaml",
      T(
        "  - {task_id: a, operator: noop}\n  - {task_id: b, operator: noop, depends_on: [a]}\n  - {task_id: c, operator: noop, depends_on: [b], args: {message: '{{ ti.a.output.x }}'}}\n",
      ),
      opts,
    );
    expect(r.ok).toBe(true);
  });

  it("reports an unknown settings key when the caller passes no settings", () => {
    const r = parseDagFile("/dags/t.yaml", "dag_id: d\nparams:\n  d: {type: string, default: '{{ settings.domain }}'}\ntasks: [{task_id: a, operator: noop}]\n", {
      catalog: testCatalog,
    });
    expect(r.ok ? "" : formatProblems(r.problems)).toContain("unknown setting 'domain' (known: none)");
  });

  it("rejects files larger than 1 MB without parsing them", () => {
    const big = `dag_id: d\ndoc_md: "${"x".repeat(1_100_000)}"\ntasks: [{task_id: a, operator: noop}]\n`;
    expect(problemsOf(big)[0]!.message).toBe("file is larger than 1000000 bytes");
  });

  it("treats YAML alias bombs as an import error", () => {
    const bomb = [
      "a: &a [x, x, x, x, x, x, x, x, x, x]",
      ...Array.from(
        { length: 9 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`,
      ),
    ].join("\n");
    expect(problemsOf(bomb)[0]!.message).toMatch(/YAML syntax: .*alias/i);
  });

  it("a __proto__ key is an unknown field, not a prototype change", () => {
    const problems = problemsOf("dag_id: d\n__proto__: {polluted: 1}\ntasks: [{task_id: a, operator: noop}]\n");
    expect(problems[0]!.message).toContain("unknown field '__proto__'");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
