import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A scratch folder holding a tiny data ISO (volume SVCTEST, one README: nothing boots from it). */
export interface TestIso {
  /** The folder (mode 755: qemu runs as its own user and must traverse it); the caller removes it. */
  dir: string;
  /** `<dir>/test.iso`. */
  iso: string;
}

/** Make a folder under the system's temp folder (`svc-<label>-…`) with a tiny data ISO in it, built by genisoimage. */
export function makeTestIso(label: string): TestIso {
  const dir = mkdtempSync(join(tmpdir(), `svc-${label}-`));
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, "README"), "svc test ISO\n");
  const iso = join(dir, "test.iso");
  const r = spawnSync("genisoimage", ["-quiet", "-output", iso, "-volid", "SVCTEST", "-joliet", "-rock", join(dir, "README")], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`genisoimage failed: ${r.stderr}`);
  return { dir, iso };
}
