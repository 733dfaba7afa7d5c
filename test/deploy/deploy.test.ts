// Runs the deployment tests (bats, test/deploy/*.bats) inside the main test command: one jest
// test per bats file, failing with the bats output when any of its tests fails.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";

const dir = __dirname;
const root = path.resolve(dir, "../..");
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".bats"))
  .sort();

describe("deployment layer (bats)", () => {
  it("has bats test files", () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)(
    "%s",
    (file) => {
      const r = spawnSync("bats", ["--tap", path.join(dir, file)], { cwd: root, encoding: "utf8", timeout: 280_000 });
      if (r.error) throw new Error(`cannot run bats (installed by scripts/test.sh): ${r.error.message}`);
      const out = `${r.stdout}${r.stderr}`;
      const failed = out.split("\n").filter((l) => l.startsWith("not ok"));
      if (r.status !== 0 || failed.length > 0) throw new Error(`bats ${file} exited ${r.status}:\n${out}`);
      expect(out).toMatch(/^ok 1 /m);
    },
    300_000,
  );
});
