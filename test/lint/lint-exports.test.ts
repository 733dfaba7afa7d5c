// The unused-export check of `pnpm lint` (scripts/lint-exports.ts), run on a scratch workspace:
// it fails on a name a package's entry exports that no file outside the package imports, and
// passes once another package imports it.
import { spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const REPO = join(__dirname, "../..");
const SCRIPT = join(REPO, "scripts/lint-exports.ts");
let dir: string;

function write(rel: string, text: string): void {
  const path = join(dir, rel);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
}

function lintExports(...args: string[]): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, ["--import", "tsx", SCRIPT, "--root", dir, ...args], { cwd: REPO, encoding: "utf8", timeout: 50_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-lint-exports-"));
  write("pnpm-workspace.yaml", "packages:\n  - packages/*\n  - services/*\n");
  write("packages/lib/package.json", JSON.stringify({ name: "@x/lib", exports: { ".": "./src/index.ts", "./extra": "./src/extra.ts" } }));
  write("packages/lib/src/index.ts", 'export { used, internal } from "./impl";\nexport type { Shape } from "./impl";\n');
  write("packages/lib/src/impl.ts", "export const used = 1;\nexport const internal = 2;\nexport interface Shape { a: number }\n");
  write("packages/lib/src/extra.ts", "export function extra(): number {\n  return 3;\n}\n");
  // The package's own test importing through its entry does not count as a use.
  write("packages/lib/test/impl.test.ts", 'import { internal } from "../src";\nvoid internal;\n');
  write("services/app/package.json", JSON.stringify({ name: "@x/app" }));
  write("services/app/src/main.ts", 'import { used, type Shape } from "@x/lib";\nimport { extra } from "@x/lib/extra";\nconst s: Shape = { a: used + extra() };\nvoid s;\n');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test("fails with file:line on an export that only its own package imports", () => {
  const r = lintExports();
  expect(r.status).toBe(1);
  expect(r.out).toContain("packages/lib/src/index.ts:1  @x/lib exports internal, which nothing outside packages/lib imports");
  expect(r.out).not.toMatch(/exports (used|Shape|extra),/);
});

test("fails on an unused type export and on an unused name of a subpath entry", () => {
  write("services/app/src/main.ts", 'import { used, internal } from "@x/lib";\nvoid (used + internal);\n');
  const r = lintExports();
  expect(r.status).toBe(1);
  expect(r.out).toContain("packages/lib/src/index.ts:2  @x/lib exports Shape,");
  expect(r.out).toContain("packages/lib/src/extra.ts:1  @x/lib/extra exports extra,");
  expect(r.out).not.toMatch(/exports (used|internal),/);
});

test("passes once another package imports every exported name (named, namespace or type import)", () => {
  write("services/other/package.json", JSON.stringify({ name: "@x/other" }));
  write("services/other/src/use.ts", 'import * as lib from "@x/lib";\nexport const n = lib.internal;\n');
  expect(lintExports()).toEqual({ status: 0, out: "" });
});

test("--report prints, per entry, the names exported and the names used outside", () => {
  const r = lintExports("--report");
  expect(r.out).toMatch(/@x\/lib\s+3\s+2\n/);
  expect(r.out).toMatch(/@x\/lib\/extra\s+1\s+1\n/);
  expect(r.out).toMatch(/total\s+4\s+3\n/);
});

test("pnpm lint runs the unused-export check", () => {
  const lint = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts.lint!;
  expect(lint).toContain("scripts/lint-exports.ts");
});
