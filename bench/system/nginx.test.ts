import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { findNginx, MissingTool } from "./nginx";

describe("finding nginx for bench:system and http-ceiling", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "svc-nginx-find-"));
    for (const d of ["path", "sbin", "empty"]) mkdirSync(path.join(dir, d));
    for (const d of ["path", "sbin"]) {
      writeFileSync(path.join(dir, d, "nginx"), "#!/bin/sh\nexit 0\n");
      chmodSync(path.join(dir, d, "nginx"), 0o755);
    }
    writeFileSync(path.join(dir, "empty", "nginx"), "not executable\n", { mode: 0o644 });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("takes nginx from PATH before the sbin directories", () => {
    expect(findNginx(path.join(dir, "path"), [path.join(dir, "sbin")])).toBe(path.join(dir, "path", "nginx"));
  });

  it("falls back to an sbin directory a non-root PATH lacks", () => {
    expect(findNginx(path.join(dir, "empty"), [path.join(dir, "sbin")])).toBe(path.join(dir, "sbin", "nginx"));
  });

  it("without nginx, fails with a message that says how to install it (not a spawn ENOENT)", () => {
    expect(() => findNginx(path.join(dir, "empty"), [])).toThrow(MissingTool);
    expect(() => findNginx(path.join(dir, "empty"), [])).toThrow(/nginx is not installed[\s\S]*Install it: sudo apt-get install -y nginx/);
  });
});
