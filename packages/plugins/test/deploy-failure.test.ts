import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, createScratch, poolState } from "./helpers";

// A step that really fails on this host: the pool directory would sit under a regular file, so
// `virsh pool-build` cannot create it. The deploy stops there, names the step and shows its output.
jest.setTimeout(120_000);

const scratch = createScratch("fail");
afterAll(() => scratch.cleanup());

it("a failing step exits 1 with the failing step and its output, in JSON and in the table summary", async () => {
  const file = join(scratch.dir, "a-file");
  writeFileSync(file, "");
  const env = { PATH: process.env.PATH, SVC_VM_IMAGES_DIR: scratch.imagesDir, SVC_LIBVIRT_POOL: scratch.pool, SVC_LIBVIRT_POOL_DIR: join(file, "pool") };

  const json = await cli(["deploy", "--plugin", "debian12", "--yes", "-o", "json"], env);
  expect(json.code).toBe(1);
  const doc = JSON.parse(json.stdout) as { applied: string[]; failed: { change: string; step: string; code: number; output: string }[] };
  expect(doc.applied).toContain(`directory:${scratch.imagesDir}`);
  expect(doc.failed).toHaveLength(1);
  expect(doc.failed[0]).toMatchObject({ change: `libvirt-pool:${scratch.pool}`, step: `virsh -c qemu:///system pool-build ${scratch.pool}` });
  expect(doc.failed[0]!.code).not.toBe(0);
  expect(doc.failed[0]!.output).toMatch(/Not a directory|cannot create|failed/i);
  expect(poolState(scratch.pool).active).toBe(false);

  // The pool was defined before pool-build failed: the next deploy only tries to start it, and fails there.
  const table = await cli(["deploy", "--plugin", "debian12", "--yes"], env);
  expect(table.code).toBe(1);
  expect(table.stdout).toContain(`    FAILED: libvirt-pool:${scratch.pool}\n`);
  expect(table.stdout).toMatch(/Summary: \d+ change\(s\), \d+ applied, 1 failed/);
  expect(table.stdout).toContain(`failed step (libvirt-pool:${scratch.pool}): virsh -c qemu:///system pool-start ${scratch.pool} (exit 1)`);
  expect(table.stdout).toMatch(/^ {4}error: .*Not a directory$/m);
});
