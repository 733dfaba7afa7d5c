import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../src/cli/run";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the svc-plugins command line in this process (real executors, real host). */
export async function cli(argv: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env });
  return { code, stdout, stderr };
}

function run(argv: string[]): { code: number; stdout: string } {
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8", env: { ...process.env, LC_ALL: "C" } });
  return { code: r.status ?? 255, stdout: r.stdout ?? "" };
}

/** A digest of every package's name, version and status: any install or removal changes it. */
export function dpkgDigest(): string {
  return createHash("sha256")
    .update(run(["dpkg-query", "-W", "-f=${Package} ${Version} ${Status}\n"]).stdout)
    .digest("hex");
}

/** Whether the storage pool is defined, running and autostarted. */
export function poolState(name: string): { defined: boolean; active: boolean; autostart: boolean } {
  const r = run(["virsh", "-c", "qemu:///system", "pool-info", name]);
  if (r.code !== 0) return { defined: false, active: false, autostart: false };
  return { defined: true, active: /^State:\s+running/m.test(r.stdout), autostart: /^Autostart:\s+yes/m.test(r.stdout) };
}

/** A scratch area with its own images directory and libvirt pool, removed (pool included) by cleanup(). */
export function createScratch(tag: string) {
  const dir = mkdtempSync(join(tmpdir(), `svc-plugins-${tag}-`));
  const pool = `svc-plugins-test-${tag}-${process.pid}`;
  return {
    dir,
    pool,
    imagesDir: join(dir, "images"),
    poolDir: join(dir, "pool"),
    cleanup() {
      // Only the pool this test defined is removed; nothing else on the host is touched.
      run(["virsh", "-c", "qemu:///system", "pool-destroy", pool]);
      run(["virsh", "-c", "qemu:///system", "pool-undefine", pool]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
