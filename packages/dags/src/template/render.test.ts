import { TemplateError } from "./errors";
import { createTemplateContext, evaluateCondition, renderArgs, renderTemplate } from "./render";
import { templateReferences } from "./references";

const ctx = createTemplateContext({
  dagId: "vm_deployment",
  runId: "manual__2024-05-01T10:00:00+00:00",
  logicalDate: new Date("2024-05-01T10:00:00Z"),
  params: { action: "create", vm_name: "web01", cpus: 2, tags: ["a", "b"], opts: { disk: 20 }, empty: "", nothing: null, Name: "MiXeD" },
  outputs: { create_vm: { ip: "10.0.0.5", ports: [22, 80] }, skipped_task: null },
});

describe("renderTemplate: values", () => {
  it.each([
    ["{{ params.vm_name }}", "web01"],
    ["{{ params.cpus }}", 2],
    ["  {{ params.cpus }}  ", 2],
    ["{{ params.tags }}", ["a", "b"]],
    ["{{ params.opts }}", { disk: 20 }],
    ["{{ params.nothing }}", null],
    ["{{ ti.create_vm.output.ip }}", "10.0.0.5"],
    ["{{ ti.create_vm.output.ports[1] }}", 80],
    ["{{ ti.create_vm.output.ports[-1] }}", 80],
    ["{{ ti.create_vm.output['ip'] }}", "10.0.0.5"],
    ["{{ params[params.nothing | default('vm_name')] }}", "web01"],
    ["{{ run_id }}", "manual__2024-05-01T10:00:00+00:00"],
    ["{{ dag_id }}", "vm_deployment"],
    ["{{ logical_date }}", "2024-05-01T10:00:00.000Z"],
    ["{{ ds }}", "2024-05-01"],
    ["{{ 'a}}b' }}", "a}}b"],
    ['{{ "it\'s" }}', "it's"],
    ["{{ 'line\\n' }}", "line\n"],
    ["{{ -3 }}", -3],
    ["{{ 1.5 }}", 1.5],
    ["{{ [1, 'x', true, none] }}", [1, "x", true, null]],
    ["no template here", "no template here"],
  ])("%s renders to %p", (tpl, expected) => {
    expect(renderTemplate(tpl, ctx)).toEqual(expected);
  });

  it.each([
    ["vm-{{ params.vm_name }}.lab", "vm-web01.lab"],
    ["cpus={{ params.cpus }} on={{ params.action == 'create' }}", "cpus=2 on=true"],
    ["[{{ params.nothing }}]", "[]"],
    ["tags={{ params.tags }}", 'tags=["a","b"]'],
    ["{{ params.vm_name }}{{ params.cpus }}", "web012"],
  ])("mixed text %s renders to the string %p", (tpl, expected) => {
    expect(renderTemplate(tpl, ctx)).toBe(expected);
  });
});

describe("renderTemplate: operators and filters", () => {
  it.each([
    ["params.action == 'create'", true],
    ["params.action != 'create'", false],
    ["params.cpus > 1 and params.cpus <= 2", true],
    ["params.cpus < 1 or params.cpus >= 4", false],
    ["not params.empty", true],
    ["params.action in ['create', 'delete']", true],
    ["params.action not in ['create', 'delete']", false],
    ["'eb' in params.vm_name", true],
    ["'disk' in params.opts", true],
    ["1 == '1'", false],
    ["params.tags == ['a', 'b']", true],
    ["(params.cpus == 2 or false) and not (params.action == 'delete')", true],
    ["params.empty or 'fallback'", "fallback"],
    ["params.vm_name and params.cpus", 2],
    ["params.Name | lower", "mixed"],
    ["params.Name | upper", "MIXED"],
    ["'  x ' | trim", "x"],
    ["params.tags | join(',')", "a,b"],
    ["params.tags | join", "ab"],
    ["params.opts | tojson", '{"disk":20}'],
    ["params.tags | length", 2],
    ["params.cpus | string", "2"],
    // `~` (Jinja's concatenation): each part as text, looser than filters, tighter than comparisons.
    ["params.vm_name ~ '-lan'", "web01-lan"],
    ["params.Name ~ '-' ~ params.cpus ~ params.empty ~ params.nothing", "MiXeD-2"],
    ["params.Name ~ 'x' | upper", "MiXeDX"],
    ["params.vm_name ~ '-lan' == 'web01-lan'", true],
    ["['user', params.vm_name ~ '-lan']", ["user", "web01-lan"]],
    ["params.cpus == 2 and ('a' ~ params.cpus) or 'none'", "a2"],
    ["params.missing | default('d')", "d"],
    ["ti.nope.output.ip | default('n/a')", "n/a"],
    ["params.nothing | default(5)", 5],
    ["params.missing | default", ""],
    ["params.vm_name | default('x') | upper", "WEB01"],
  ])("{{ %s }} is %p", (expr, expected) => {
    expect(renderTemplate(`{{ ${expr} }}`, ctx)).toEqual(expected);
  });
});

describe("the stable_mac filter", () => {
  // Expected values computed with Python's hashlib: '52:54:00:' + md5(text)[0:6] in pairs.
  it.each([
    ["'ocp' | stable_mac('-0')", "52:54:00:0a:b9:b5"],
    ["params.vm_name | stable_mac", "52:54:00:2f:52:76"],
    ["params.vm_name | stable_mac('-3')", "52:54:00:90:88:4a"],
    ["'café' | stable_mac('-1')", "52:54:00:3d:4e:15"],
  ])("{{ %s }} is %p", (expr, expected) => {
    expect(renderTemplate(`{{ ${expr} }}`, ctx)).toBe(expected);
  });

  it("is a unicast, locally administered QEMU MAC, the same on every call", () => {
    const mac = renderTemplate("{{ params.vm_name | stable_mac('-0') }}", ctx) as string;
    expect(mac).toMatch(/^52:54:00(:[0-9a-f]{2}){3}$/);
    expect(renderTemplate("{{ params.vm_name | stable_mac('-0') }}", ctx)).toBe(mac);
    expect(renderTemplate("{{ params.vm_name | stable_mac('-1') }}", ctx)).not.toBe(mac);
  });

  it("takes strings only", () => {
    expect(() => renderTemplate("{{ params.cpus | stable_mac }}", ctx)).toThrow("filter 'stable_mac' needs a string, got number");
    expect(() => renderTemplate("{{ params.vm_name | stable_mac(1) }}", ctx)).toThrow("filter 'stable_mac' needs a string, got number");
    expect(() => renderTemplate("{{ params.vm_name | stable_mac('-0', '-1') }}", ctx)).toThrow("filter 'stable_mac' takes 0 to 1 argument(s), got 2");
  });
});

describe("renderTemplate: errors name what went wrong", () => {
  it.each([
    ["{{ foo }}", "unknown variable 'foo'"],
    ["{{ params.nope }}", "'params.nope' is undefined"],
    ["{{ ti.other.output.ip }}", "'ti.other.output.ip' is undefined"],
    ["{{ ti.create_vm.output.ports[7] }}", "'ti.create_vm.output.ports[7]' is undefined"],
    ["{{ params.nope | upper }}", "'params.nope' is undefined"],
    ["{{ params.cpus | lower }}", "filter 'lower' needs a string, got number"],
    ["{{ params.cpus < 'a' }}", "cannot compare number < string"],
    ["{{ params.vm_name", "never closed"],
    ["{{ }}", "empty expression"],
    ["{{ 'abc }}", "string starting at position 4 is never closed"],
    ["{{ params.x | shout }}", "unknown filter 'shout'"],
    ["{{ params.tags | join(1, 2) }}", "filter 'join' takes 0 to 1 argument(s), got 2"],
    ["{{ a < b < c }}", "chained comparisons are not supported"],
    ["{{ params.vm_name; }}", "unexpected character ';'"],
    ["{% if x %}y{% endif %}", "statements '{% ... %}' are not supported"],
  ])("%s → %s", (tpl, fragment) => {
    expect(() => renderTemplate(tpl, ctx)).toThrow(TemplateError);
    expect(() => renderTemplate(tpl, ctx)).toThrow(fragment);
  });
});

describe("templates cannot execute code or reach prototypes", () => {
  const hostile = [
    "{{ constructor.constructor('x')() }}",
    "{{ params.constructor.constructor('return process')() }}",
    "{{ params.__proto__ }}",
    "{{ params['__proto__'] }}",
    "{{ params.constructor }}",
    "{{ params.toString }}",
    "{{ params.vm_name.length }}",
    "{{ params.tags.length }}",
    "{{ params.tags.push }}",
    "{{ ti.create_vm.output.hasOwnProperty }}",
    "{{ __proto__ }}",
    "{{ this }}",
    "{{ process.env }}",
    "{{ globalThis }}",
    "{{ require('fs') }}",
    "{{ params.vm_name | constructor }}",
    "{{ (params).__defineGetter__ }}",
    "{{ params[['__proto__']] }}",
    "{{ `x` }}",
  ];
  it.each(hostile)("%s raises a TemplateError and executes nothing", (tpl) => {
    expect(() => renderTemplate(tpl, ctx)).toThrow(TemplateError);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("own __proto__ and constructor keys in data are ordinary values and never change prototypes", () => {
    const params = JSON.parse('{"__proto__": {"polluted": "yes"}, "constructor": {"name": "c"}}') as Record<string, unknown>;
    const c = { params };
    expect(renderTemplate("{{ params.__proto__.polluted }}", c)).toBe("yes");
    expect(renderTemplate("{{ params.constructor.name }}", c)).toBe("c");
    const out = renderArgs(JSON.parse('{"__proto__": {"polluted": "{{ params.constructor.name }}"}}') as Record<string, unknown>, c);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(["__proto__"]);
    expect(out.polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("functions and class instances in the context are not reachable", () => {
    const c = { params: { f: () => "ran", d: new Date(0), m: new Map([["k", 1]]) } };
    expect(() => renderTemplate("{{ params.f }}", c)).toThrow("'params.f' is undefined");
    expect(() => renderTemplate("{{ params.m.k }}", c)).toThrow("'params.m.k' is undefined");
    expect(() => renderTemplate("{{ params.d.getTime }}", c)).toThrow("'params.d.getTime' is undefined");
  });

  it("deep nesting fails with a TemplateError instead of overflowing the stack", () => {
    expect(() => renderTemplate(`{{ ${"(".repeat(5000)}1${")".repeat(5000)} }}`, ctx)).toThrow(/nested deeper than|longer than/);
    expect(() => renderTemplate(`{{ ${"not ".repeat(500)}true }}`, ctx)).toThrow(/nested deeper than/);
    expect(() => renderTemplate(`{{ ${"[".repeat(200)}${"]".repeat(200)} }}`, ctx)).toThrow(/nested deeper than/);
    expect(() => renderTemplate(`{{ true${" and true".repeat(5000)} }}`, ctx)).toThrow(/longer than 1000 tokens/);
    const nest = (n: number) => {
      let v: unknown = 1;
      for (let i = 0; i < n; i++) v = [v];
      return v;
    };
    const deep = nest(5000);
    expect(() => renderTemplate("{{ params.a == params.b }}", { params: { a: deep, b: nest(5000) } })).toThrow("value nested deeper than 100 levels");
    expect(() => renderTemplate("{{ params.a | tojson }}", { params: { a: nest(100_000) } })).toThrow("value cannot be converted to JSON");
    expect(() => renderArgs({ a: deep }, ctx)).toThrow(/nested deeper than 64 levels/);
  });

  it("very long strings render in linear time without errors when valid", () => {
    const long = "x".repeat(90_000);
    expect(renderTemplate(`${long}{{ params.vm_name }}`, ctx)).toBe(`${long}web01`);
    expect(renderTemplate(`{{ '${long}' | length }}`, ctx)).toBe(90_000);
    expect(() => renderTemplate(`{{ params.vm_name }}${"y".repeat(200_000)}`, ctx)).toThrow("template longer than 100000 characters");
    expect(() => renderTemplate(`${"{{".repeat(20_000)}`, ctx)).toThrow(TemplateError);
  });
});

describe("renderArgs", () => {
  it("renders strings inside nested objects and lists and keeps other values as they are", () => {
    const args = { name: "{{ params.vm_name }}", cpus: "{{ params.cpus }}", fixed: 3, flag: true, nested: { list: ["{{ ds }}", "plain", { ip: "{{ ti.create_vm.output.ip }}" }] } };
    expect(renderArgs(args, ctx)).toEqual({ name: "web01", cpus: 2, fixed: 3, flag: true, nested: { list: ["2024-05-01", "plain", { ip: "10.0.0.5" }] } });
  });

  it("does not modify its input", () => {
    const args = { name: "{{ params.vm_name }}" };
    renderArgs(args, ctx);
    expect(args).toEqual({ name: "{{ params.vm_name }}" });
  });

  it("names the failing arg path in the error", () => {
    expect(() => renderArgs({ nested: { list: ["ok", "{{ nope }}"] } }, ctx)).toThrow("args.nested.list[1]: unknown variable 'nope'");
  });
});

describe("evaluateCondition", () => {
  it.each([
    ["{{ params.action == 'create' }}", true],
    ["{{ params.action == 'delete' }}", false],
    ["params.action == 'create'", true],
    ["{{ params.empty }}", false],
    ["{{ params.tags }}", true],
    ["{{ [] }}", false],
    ["{{ 0 }}", false],
    ["{{ params.nothing }}", false],
    ["{{ params.opts }}", true],
    [null, true],
    ["", true],
  ])("%p is %p", (when, expected) => {
    expect(evaluateCondition(when, ctx)).toBe(expected);
  });

  it("rejects conditions that mix text and expressions", () => {
    expect(() => evaluateCondition("{{ params.cpus }} > {{ 1 }}", ctx)).toThrow("a condition must be a single expression");
  });

  it("raises for unknown params instead of treating them as false", () => {
    expect(() => evaluateCondition("{{ params.nope == 'x' }}", ctx)).toThrow("'params.nope' is undefined");
  });
});

describe("templateReferences", () => {
  it("lists every variable path, marking computed subscripts", () => {
    expect(templateReferences("{{ params.a }}-{{ ti.t.output.ip | default(params.b) }} {{ params[params.k] }}")).toEqual([
      { path: ["params", "a"], dynamic: false },
      { path: ["ti", "t", "output", "ip"], dynamic: false },
      { path: ["params", "b"], dynamic: false },
      { path: ["params"], dynamic: true },
      { path: ["params", "k"], dynamic: false },
    ]);
  });
});
