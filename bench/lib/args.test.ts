import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const TSX = path.join(__dirname, "../../node_modules/.bin/tsx");
const HOP_COUNT = path.join(__dirname, "../hop-count.ts");

test("a benchmark's --help prints its usage and exits 0, without starting anything", async () => {
  const { stdout, stderr } = await run(TSX, [HOP_COUNT, "--help"], { timeout: 60_000 });
  expect(stdout).toMatch(/^Usage: pnpm exec tsx bench\/hop-count.ts \[--runs 5\]/);
  expect(stderr).toBe("");
}, 90_000);

test("an unknown option gets one line and the usage on stderr and exit code 2, not a stack trace", async () => {
  const err = await run(TSX, [HOP_COUNT, "--rnus", "3"], { timeout: 60_000 }).then(
    () => undefined,
    (e: { code: number; stderr: string }) => e,
  );
  expect(err?.code).toBe(2);
  expect(err?.stderr).toMatch(/^hop-count: Unknown option '--rnus'/);
  expect(err?.stderr).toMatch(/Usage: pnpm exec tsx bench\/hop-count.ts/);
  expect(err?.stderr).not.toMatch(/at \w+ \(/);
}, 90_000);
