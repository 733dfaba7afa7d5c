import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the script is plain CommonJS run by node in scripts/test.sh
const { split } = require("./test-groups.cjs") as { split: (files: string[], root: string) => { serial: string[]; beside: string[]; after: string[] } };

const ROOT = path.resolve(__dirname, "../..");
const tracked = execFileSync("git", ["ls-files", "*.test.ts"], { cwd: ROOT, encoding: "utf8" })
  .split("\n")
  .filter(Boolean)
  .map((f) => path.join(ROOT, f));
// What makes a file heavy: a VM (the VM lock, a product stack, an image), Docker, a fault stack, or an HA drill (a Postgres formation, sentinels).
const HEAVY =
  /acquireVmTestLock|startProductStack|ensureTestImage|ensureProductImage|startOwnFaultStack|startRedisServer|startPgAutoFailover|startSecondHost|FailoverDrill\(|docker compose|"docker"/;

// What may not run beside the serial group's guests even after the light files: a VM or a fault drill.
const VM_OR_FAULT =
  /acquireVmTestLock|startProductStack|ensureTestImage|ensureProductImage|startOwnFaultStack|startRedisServer|startPgAutoFailover|startSecondHost|FailoverDrill\(/;
const rel = (files: string[]) => files.map((f) => path.relative(ROOT, f));

test("every test file that boots a VM, runs Docker or a fault stack runs one at a time (serial or after), and every file runs in exactly one group", () => {
  const { serial, beside, after } = split(tracked, ROOT);
  expect(rel(beside.filter((f) => f !== __filename && HEAVY.test(readFileSync(f, "utf8"))))).toEqual([]);
  expect([...serial, ...beside, ...after].sort()).toEqual([...tracked].sort());
  expect(new Set([...serial, ...beside, ...after]).size).toBe(tracked.length);
});

test("the files run after the beside group boot no VM and start no fault stack, and the compose suite is one of them", () => {
  const { after } = split(tracked, ROOT);
  expect(rel(after.filter((f) => VM_OR_FAULT.test(readFileSync(f, "utf8"))))).toEqual([]);
  expect(rel(after)).toContain("test/deploy/compose-stack.test.ts");
});

test("the groups' folders hold what they name: the VM end-to-end tests are serial, an engine unit test is beside", () => {
  const { serial, beside, after } = split(
    [
      path.join(ROOT, "test/e2e/identity-samba.e2e.test.ts"),
      path.join(ROOT, "test/ha/postgres-failover.test.ts"),
      path.join(ROOT, "packages/engine/src/runtime/coalesce.test.ts"),
      path.join(ROOT, "test/deploy/compose-stack.test.ts"),
      path.join(ROOT, "test/deploy/runtime-deps.test.ts"),
    ],
    ROOT,
  );
  expect(rel(serial)).toEqual(["test/e2e/identity-samba.e2e.test.ts", "test/ha/postgres-failover.test.ts", "test/deploy/runtime-deps.test.ts"]);
  expect(rel(beside)).toEqual(["packages/engine/src/runtime/coalesce.test.ts"]);
  expect(rel(after)).toEqual(["test/deploy/compose-stack.test.ts"]);
});
