import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the script is plain CommonJS run by node in scripts/test.sh
const { split } = require("./test-groups.cjs") as { split: (files: string[], root: string) => { serial: string[]; beside: string[] } };

const ROOT = path.resolve(__dirname, "../..");
const tracked = execFileSync("git", ["ls-files", "*.test.ts"], { cwd: ROOT, encoding: "utf8" })
  .split("\n")
  .filter(Boolean)
  .map((f) => path.join(ROOT, f));
// What makes a file heavy: a VM (the VM lock, a product stack, an image), Docker, a fault stack, or an HA drill (a Postgres formation, sentinels).
const HEAVY =
  /acquireVmTestLock|startProductStack|ensureTestImage|ensureProductImage|startOwnFaultStack|startRedisServer|startPgAutoFailover|startSecondHost|FailoverDrill\(|docker compose|"docker"/;

test("every test file that boots a VM, runs Docker or a fault stack runs in the serial group, and every file runs in exactly one group", () => {
  const { serial, beside } = split(tracked, ROOT);
  const heavyBeside = beside.filter((f) => f !== __filename && HEAVY.test(readFileSync(f, "utf8"))).map((f) => path.relative(ROOT, f));
  expect(heavyBeside).toEqual([]);
  expect([...serial, ...beside].sort()).toEqual([...tracked].sort());
  expect(serial.filter((f) => beside.includes(f))).toEqual([]);
});

test("the groups' folders hold what they name: the VM end-to-end tests are serial, an engine unit test is beside", () => {
  const { serial, beside } = split(
    [path.join(ROOT, "test/e2e/identity-samba.e2e.test.ts"), path.join(ROOT, "test/ha/postgres-failover.test.ts"), path.join(ROOT, "packages/engine/src/runtime/coalesce.test.ts")],
    ROOT,
  );
  expect(serial.map((f) => path.relative(ROOT, f))).toEqual(["test/e2e/identity-samba.e2e.test.ts", "test/ha/postgres-failover.test.ts"]);
  expect(beside.map((f) => path.relative(ROOT, f))).toEqual(["packages/engine/src/runtime/coalesce.test.ts"]);
});
