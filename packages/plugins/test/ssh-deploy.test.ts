import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startSshd, type TestSshd } from "@svc/testing";
import { cli, createScratch, poolState } from "./helpers";

// Deploy over SSH with the project's executor (ssh2, host key pinned in known_hosts) against a
// private sshd on a spare port; the host behind it is this Debian 12 machine.
jest.setTimeout(300_000);

let sshd: TestSshd;
const scratch = createScratch("ssh");
let env: Record<string, string | undefined>;

beforeAll(async () => {
  sshd = await startSshd();
  env = {
    PATH: process.env.PATH,
    SVC_SSH_PORT: String(sshd.port),
    SVC_SSH_KEY_PATH: sshd.keyPath,
    SVC_SSH_KNOWN_HOSTS: sshd.knownHostsPath,
    SVC_VM_IMAGES_DIR: scratch.imagesDir,
    SVC_LIBVIRT_POOL: scratch.pool,
    SVC_LIBVIRT_POOL_DIR: scratch.poolDir,
  };
});

afterAll(async () => {
  await sshd?.stop();
  scratch.cleanup();
});

describe("svc-plugins deploy --host root@127.0.0.1", () => {
  it("refuses a host whose key is not pinned in known_hosts and changes nothing", async () => {
    const empty = join(scratch.dir, "empty_known_hosts");
    writeFileSync(empty, "");
    const r = await cli(["deploy", "--plugin", "debian12", "--yes", "--host", "root@127.0.0.1"], { ...env, SVC_SSH_KNOWN_HOSTS: empty });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/host key/i);
    expect(existsSync(scratch.imagesDir)).toBe(false);
  });

  it("deploys over SSH: the first run applies the plan on the remote host, the second has nothing to change", async () => {
    // The port can also come with --host instead of SVC_SSH_PORT.
    const dry = await cli(["deploy", "--plugin", "debian12", "--dry-run", "--host", `root@127.0.0.1:${sshd.port}`, "-o", "json"], { ...env, SVC_SSH_PORT: undefined });
    expect(dry.code).toBe(0);
    const plan = JSON.parse(dry.stdout) as { target: string; changes: { id: string }[] };
    expect(plan.target).toBe(`root@127.0.0.1:${sshd.port}`);
    expect(plan.changes.map((c) => c.id)).toEqual(expect.arrayContaining([`directory:${scratch.imagesDir}`, `libvirt-pool:${scratch.pool}`]));
    expect(existsSync(scratch.imagesDir)).toBe(false);

    const first = await cli(["deploy", "--plugin", "debian12", "--yes", "--host", "root@127.0.0.1", "-o", "json"], env);
    expect(first.code).toBe(0);
    const applied = JSON.parse(first.stdout) as { applied: string[]; failed: unknown[] };
    expect(applied.failed).toEqual([]);
    expect(applied.applied).toEqual(plan.changes.map((c) => c.id));
    expect(existsSync(scratch.imagesDir)).toBe(true);
    expect(poolState(scratch.pool)).toEqual({ defined: true, active: true, autostart: true });

    const second = await cli(["deploy", "--plugin", "debian12", "--yes", "--host", "root@127.0.0.1", "-o", "json"], env);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ changes: [], applied: [], failed: [] });
  });
});
