// The dependency-direction check of `pnpm lint` (scripts/lint-package-cycles.ts), run on a scratch
// workspace: it fails on a cycle among the workspace's packages, also one closed by a
// devDependency (a package's tests needing a package that needs it), and passes once it is broken.
import { spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const REPO = join(__dirname, "../..");
const SCRIPT = join(REPO, "scripts/lint-package-cycles.ts");
let dir: string;

function pkg(rel: string, name: string, deps: Record<string, string> = {}, devDeps: Record<string, string> = {}): void {
  mkdirSync(join(dir, rel), { recursive: true });
  writeFileSync(join(dir, rel, "package.json"), JSON.stringify({ name, dependencies: deps, devDependencies: devDeps }));
}

function lintCycles(): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, ["--import", "tsx", SCRIPT, "--root", dir], { cwd: REPO, encoding: "utf8", timeout: 50_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-lint-cycles-"));
  writeFileSync(join(dir, "pnpm-workspace.yaml"), "packages:\n  - packages/*\n  - services/*\n");
  // engine's tests use testing; testing uses operators; operators use engine: a cycle through a devDependency.
  pkg("packages/engine", "@x/engine", { "@x/db": "workspace:*", zod: "^4" }, { "@x/testing": "workspace:*" });
  pkg("packages/testing", "@x/testing", { "@x/db": "workspace:*", "@x/operators": "workspace:*" });
  pkg("packages/operators", "@x/operators", { "@x/engine": "workspace:*" }, { "@x/testing": "workspace:*" });
  pkg("packages/db", "@x/db");
  pkg("services/worker", "@x/worker", { "@x/engine": "workspace:*", "@x/operators": "workspace:*" }, { "@x/testing": "workspace:*" });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test("fails on a cycle closed by a devDependency and names each cycle's path, marking the dev edges", () => {
  const r = lintCycles();
  expect(r.status).toBe(1);
  expect(r.out).toContain("dependency cycle: @x/engine -> @x/testing (dev) -> @x/operators -> @x/engine\n");
  expect(r.out).toContain("dependency cycle: @x/operators -> @x/testing (dev) -> @x/operators\n");
  expect(r.out).toContain("2 dependency cycle(s)");
});

test("fails on a cycle of runtime dependencies alone", () => {
  pkg("packages/testing", "@x/testing", { "@x/db": "workspace:*" });
  pkg("packages/db", "@x/db", { "@x/engine": "workspace:*" });
  const r = lintCycles();
  expect(r.status).toBe(1);
  expect(r.out).toContain("dependency cycle: @x/db -> @x/engine -> @x/db\n");
});

test("passes once the test helpers no longer depend on a package whose tests use them", () => {
  pkg("packages/testing", "@x/testing", { "@x/db": "workspace:*" });
  expect(lintCycles()).toEqual({ status: 0, out: "" });
});

test("runs in pnpm lint", () => {
  const lint = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts.lint!;
  expect(lint).toContain("tsx scripts/lint-package-cycles.ts");
});

test("the repository's own packages have no cycle", () => {
  const r = spawnSync(process.execPath, ["--import", "tsx", SCRIPT], { cwd: REPO, encoding: "utf8", timeout: 50_000 });
  expect({ status: r.status, out: `${r.stdout}${r.stderr}` }).toEqual({ status: 0, out: "" });
});
