import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { freePort, startSshd } from "@svc/testing";
import { DEBIAN12_PACKAGES } from "../src/plugins/debian12";
import { cli, createScratch, dpkgDigest, poolState } from "./helpers";

// The real deploy on this Debian 12 host (root): packages and daemons are the host's own (already
// prepared here, so only missing ones would change); the images directory and the storage pool are
// this test's own, so that a first deploy always has something to make and the cleanup can undo it.
jest.setTimeout(300_000);

const scratch = createScratch("local");
const env = {
  PATH: process.env.PATH,
  SVC_VM_IMAGES_DIR: scratch.imagesDir,
  SVC_LIBVIRT_POOL: scratch.pool,
  SVC_LIBVIRT_POOL_DIR: scratch.poolDir,
};

afterAll(() => scratch.cleanup());

interface DeployJson {
  plugin: string;
  dry_run: boolean;
  changes: { id: string; steps: string[] }[];
  applied: string[];
  failed: unknown[];
}

describe("svc-plugins deploy --plugin debian12 on this host", () => {
  it("--dry-run prints the plan and changes no package, file or libvirt object", async () => {
    const before = dpkgDigest();
    const r = await cli(["deploy", "--plugin", "debian12", "--dry-run", "-o", "json"], env);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as DeployJson;
    expect(doc.dry_run).toBe(true);
    const ids = doc.changes.map((c) => c.id);
    expect(ids).toEqual(expect.arrayContaining([`directory:${scratch.imagesDir}`, `libvirt-pool:${scratch.pool}`]));
    expect(doc.changes.find((c) => c.id === `libvirt-pool:${scratch.pool}`)!.steps).toEqual([
      `virsh -c qemu:///system pool-define-as ${scratch.pool} dir --target ${scratch.poolDir}`,
      `virsh -c qemu:///system pool-build ${scratch.pool}`,
      `virsh -c qemu:///system pool-start ${scratch.pool}`,
      `virsh -c qemu:///system pool-autostart ${scratch.pool}`,
    ]);
    expect(doc.applied).toEqual([]);
    expect(existsSync(scratch.imagesDir)).toBe(false);
    expect(poolState(scratch.pool).defined).toBe(false);
    expect(dpkgDigest()).toBe(before);
  });

  it("without --yes and without a terminal it shows the plan, changes nothing and exits 1", async () => {
    const r = await cli(["deploy", "--plugin", "debian12"], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`would run: install -d -m 0755 ${scratch.imagesDir}`);
    expect(r.stderr).toMatch(/rerun with --yes/);
    expect(existsSync(scratch.imagesDir)).toBe(false);
    expect(poolState(scratch.pool).defined).toBe(false);
  });

  it("an sshd on another port (a test's private one) is not svc's: the plan starts sshd on SVC_SSH_PORT", async () => {
    const other = await startSshd();
    try {
      const port = await freePort();
      const r = await cli(["deploy", "--plugin", "debian12", "--dry-run", "-o", "json"], { ...env, SVC_SSH_PORT: String(port) });
      expect(r.code).toBe(0);
      const doc = JSON.parse(r.stdout) as DeployJson;
      expect(doc.changes.find((c) => c.id === "service:sshd")?.steps).toContain(`/usr/sbin/sshd -p ${port}`);
      const onItsPort = await cli(["deploy", "--plugin", "debian12", "--dry-run", "-o", "json"], { ...env, SVC_SSH_PORT: String(other.port) });
      expect((JSON.parse(onItsPort.stdout) as DeployJson).changes.map((c) => c.id)).not.toContain("service:sshd");
    } finally {
      await other.stop();
    }
  });

  it("the first deploy makes every planned change, step by step, and leaves the host prepared", async () => {
    const r = await cli(["deploy", "--plugin", "debian12", "--yes"], env);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`    + install -d -m 0755 ${scratch.imagesDir}\n    ok\n`);
    expect(r.stdout).toMatch(/Summary: (\d+) change\(s\), \1 applied, 0 failed, 0 not tried/);
    expect(existsSync(scratch.imagesDir)).toBe(true);
    expect(poolState(scratch.pool)).toEqual({ defined: true, active: true, autostart: true });
    const installed = spawnSync("dpkg-query", ["-W", "-f=${Status}\n", ...DEBIAN12_PACKAGES], { encoding: "utf8" }).stdout;
    expect(installed.trim().split("\n")).toEqual(DEBIAN12_PACKAGES.map(() => "install ok installed"));
    expect(spawnSync("virsh", ["-c", "qemu:///system", "version"]).status).toBe(0);
  });

  it("a second deploy has nothing to change and installs nothing", async () => {
    const before = dpkgDigest();
    const r = await cli(["deploy", "--plugin", "debian12", "--yes", "-o", "json"], env);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as DeployJson;
    expect(doc).toMatchObject({ plugin: "debian12", dry_run: false, changes: [], applied: [], failed: [] });
    expect(dpkgDigest()).toBe(before);
    const table = await cli(["deploy", "--plugin", "debian12"], env);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain("nothing to change: local matches debian12");
  });
});
