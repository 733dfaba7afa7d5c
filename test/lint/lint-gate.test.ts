// The lint gate: each of the three tools `pnpm lint` runs, with the repository's own settings,
// rejects its kind of finding in a scratch file and accepts the corrected file.
import { spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const REPO = join(__dirname, "../..");
const BIN = join(REPO, "node_modules/.bin");
let dir: string;

function run(cmd: string, args: string[]): { status: number | null; out: string } {
  const r = spawnSync(cmd, args, { cwd: dir, encoding: "utf8", timeout: 60_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

function write(rel: string, text: string): string {
  const path = join(dir, rel);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-lint-gate-"));
  // A project of its own so the type-aware rules have a program; the compiler settings are the repository's.
  write("tsconfig.json", JSON.stringify({ extends: join(REPO, "tsconfig.base.json"), compilerOptions: { noEmit: true, types: [] }, include: ["packages/*/src/**/*.ts"] }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("pnpm lint runs eslint, prettier --check and shellcheck over the tree", () => {
  const lint = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts.lint!;
  expect(lint).toMatch(/\beslint\b.* \./);
  expect(lint).toContain("prettier --check");
  expect(lint).toContain("scripts/lint-shell.sh");
});

test("eslint fails on a promise that is never awaited and passes once it is awaited", () => {
  const head = "async function save(): Promise<void> {}\n\n";
  const bad = write("packages/scratch/src/unawaited.ts", `${head}export function handler(): void {\n  save();\n}\n`);
  const good = write("packages/scratch/src/awaited.ts", `${head}export async function handler(): Promise<void> {\n  await save();\n}\n`);
  const config = join(REPO, "eslint.config.mjs");
  const failed = run(join(BIN, "eslint"), ["--config", config, bad]);
  expect(failed.status).toBe(1);
  expect(failed.out).toContain("@typescript-eslint/no-floating-promises");
  expect(run(join(BIN, "eslint"), ["--config", config, good])).toEqual({ status: 0, out: "" });
});

test("prettier --check fails on an unformatted file and passes on the formatted one", () => {
  const config = join(REPO, ".prettierrc.json");
  const ugly = write("ugly.ts", "export const x = {a:1,b:'two'}\n");
  const neat = write("neat.ts", 'export const x = { a: 1, b: "two" };\n');
  const failed = run(join(BIN, "prettier"), ["--config", config, "--check", ugly]);
  expect(failed.status).toBe(1);
  expect(failed.out).toContain("ugly.ts");
  expect(run(join(BIN, "prettier"), ["--config", config, "--check", neat]).status).toBe(0);
});

test("shellcheck fails on an unquoted $var in a script and passes once it is quoted", () => {
  const lintShell = join(REPO, "scripts/lint-shell.sh");
  const bad = write("bad.sh", "#!/usr/bin/env bash\nset -euo pipefail\ntarget=$1\nrm -rf $target/cache\n");
  const good = write("good.sh", '#!/usr/bin/env bash\nset -euo pipefail\ntarget=$1\nrm -rf "$target/cache"\n');
  const failed = run("bash", [lintShell, bad]);
  expect(failed.status).toBe(1);
  expect(failed.out).toContain("SC2086");
  expect(run("bash", [lintShell, good]).status).toBe(0);
});
