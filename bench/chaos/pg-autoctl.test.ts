import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { findPgAutoctl, MissingPgAutoctl } from "../../test/ha/pg-auto-failover";

describe("finding pg_autoctl before the failover drills (chaos --ha)", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "svc-pgautoctl-find-"));
    for (const d of ["bin", "usr", "empty"]) mkdirSync(path.join(dir, d));
    for (const d of ["bin", "usr"]) {
      writeFileSync(path.join(dir, d, "pg_autoctl"), "#!/bin/sh\nexit 0\n");
      chmodSync(path.join(dir, d, "pg_autoctl"), 0o755);
    }
    writeFileSync(path.join(dir, "empty", "pg_autoctl"), "not executable\n", { mode: 0o644 });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("takes the first directory that holds an executable pg_autoctl", () => {
    expect(findPgAutoctl([path.join(dir, "empty"), path.join(dir, "bin"), path.join(dir, "usr")])).toBe(path.join(dir, "bin", "pg_autoctl"));
  });

  it("without it, fails at once with the Debian package to install (not a monitor time-out)", () => {
    expect(() => findPgAutoctl([path.join(dir, "empty")])).toThrow(MissingPgAutoctl);
    expect(() => findPgAutoctl([path.join(dir, "empty")])).toThrow(/pg_autoctl is not installed[\s\S]*apt-get install -y postgresql-15-auto-failover/);
  });
});
