// The application image installs production dependencies only: every module a package or
// service loads at run time must be in its "dependencies", or the container fails to start.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
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
