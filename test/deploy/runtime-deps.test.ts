// The application image installs production dependencies only: every module a package or
// service loads at run time must be in its "dependencies", or the container fails to start.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
const IMPORT = /(?:^|\n)\s*import\s+(type\s+)?[^;]*?from\s+["']([^"']+)["']|require\(["']([^"']+)["']\)|import\(["']([^"']+)["']\)/g;

function files(dir: string): string[] {
  let out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = path.join(dir, e);
    if (statSync(p).isDirectory()) out = out.concat(files(p));
    else if (p.endsWith(".ts") && !p.endsWith(".test.ts") && !p.endsWith("test-helpers.ts")) out.push(p);
  }
  return out;
}

function undeclared(unit: string): string[] {
  const pkg = JSON.parse(readFileSync(path.join(unit, "package.json"), "utf8")) as { dependencies?: Record<string, string> };
  const deps = new Set(Object.keys(pkg.dependencies ?? {}));
  const missing = new Set<string>();
  for (const f of files(path.join(unit, "src"))) {
    for (const m of readFileSync(f, "utf8").matchAll(IMPORT)) {
      if (m[1]) continue;
      const spec = m[2] ?? m[3] ?? m[4]!;
      if (spec.startsWith(".") || spec.startsWith("node:")) continue;
      const name = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!;
      if (!deps.has(name) && !builtinModules.includes(name)) missing.add(`${path.relative(ROOT, f)}: ${name}`);
    }
  }
  return [...missing];
}

const units = ["packages", "services"]
  .flatMap((d) => readdirSync(path.join(ROOT, d)).map((u) => path.join(ROOT, d, u)))
  .filter((u) => statSync(path.join(u, "src"), { throwIfNoEntry: false })?.isDirectory());

test.each(units.map((u) => [path.relative(ROOT, u), u]))("%s declares every module its code loads at run time as a dependency", (_name, unit) => {
  expect(undeclared(unit)).toEqual([]);
});

// What serves HTTP loads no SSH, libvirt or host-executor code: the web UI and the assistant API
// import the light entries (@svc/hosts, @svc/operators/catalog, @svc/host/known-hosts, @svc/vm/plan). Each
// service's entry runs in a child process with a setting it refuses, so it loads its whole
// import graph and exits before it opens anything; the modules it loaded are then read back.
const HEAVY = [
  /^packages\/vm\/(?!src\/(cloud-plan-text|plan-entry|product-ports|firewall|errors)\.ts$)/,
  /\/node_modules\/ssh2\//,
  /\/node_modules\/@aws-sdk\/client-/,
  /\/node_modules\/@google-cloud\/compute\//,
  /\/node_modules\/@azure\/arm-/,
  /^packages\/host\/src\/(ssh-[a-z-]+|local-executor|executor|fence|sections)\.ts$/,
  /^packages\/hosts\/src\/(connect|contact|probe|cloud-probe)\.ts$/,
  /^packages\/hosts\/src\/(routing\/(create-host-routing|operator-hosts|monitor|route)|cli\/[a-z-]+)\.ts$/,
  /^packages\/operators\/src\/(all|host\/(index|deps|ssh-operator|vm-operators|vm-cli|vm-wait-ssh|ansible-(playbook|run|jump|output|strategy)|host-check|http-check))\.ts$/,
];

function loadedBy(service: string): string[] {
  const out = path.join(mkdtempSync(path.join(tmpdir(), "svc-loaded-")), "modules.txt");
  const preload = path.join(__dirname, "fixtures/loaded-modules.cjs");
  const r = spawnSync(process.execPath, ["--require", "tsx/cjs", "--require", preload, `services/${service}/src/main.ts`], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, SVC_LOG_LEVEL: "not-a-level", LOADED_MODULES_OUT: out },
    timeout: 60_000,
  });
  expect(r.stderr).toContain("SVC_LOG_LEVEL");
  return readFileSync(out, "utf8").split("\n").filter(Boolean);
}

const heavyIn = (loaded: string[]) => loaded.filter((m) => HEAVY.some((re) => re.test(m.replace(/\\/g, "/"))));

test.each(["web-ui", "assistant-api"])("%s loads no SSH, libvirt, cloud SDK or host-executor module to serve HTTP", (service) => {
  const loaded = loadedBy(service);
  expect(loaded).toContain(`services/${service}/src/app.ts`);
  expect(heavyIn(loaded)).toEqual([]);
});

test("the worker, which runs the operators, does load them: the check sees what a service loads", () => {
  expect(heavyIn(loadedBy("worker"))).toEqual(
    expect.arrayContaining(["packages/host/src/ssh-executor.ts", "packages/operators/src/host/deps.ts", "packages/vm/src/libvirt/driver.ts"]),
  );
});
