import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { acquireVmTestLock, ensureLibvirtd, ensureTestImage, startSecondHost, TEST_IMAGE_NAME, type SecondHost } from "../src";

// Two extra libvirt hosts on this machine (b and c), each a libvirtd in its own mount namespace
// reached over its own sshd on 127.0.0.1, beside the machine's own libvirtd ("main"). Domains
// defined here are never started, except the one VM svc-vm creates on b through SSH.
const PREFIX = `svc-sh${process.pid}`;
const URI = "qemu:///system";
let b: SecondHost;
let c: SecondHost;
let release: (() => void) | undefined;

const mainVirsh = (...a: string[]) => spawnSync("virsh", ["--connect", URI, ...a], { encoding: "utf8" });
const mainDomains = () => mainVirsh("list", "--all", "--name").stdout.split("\n").filter(Boolean);

function xml(name: string): string {
  return `<domain type='qemu'><name>${name}</name><memory unit='MiB'>64</memory><vcpu>1</vcpu><os><type arch='x86_64'>hvm</type></os></domain>\n`;
}

/** Run argv on host `h` through its sshd with OpenSSH, the host key checked against its known_hosts. */
function ssh(h: SecondHost, argv: string[], port = h.port): Promise<{ code: number; stdout: string; stderr: string }> {
  const opts = ["-i", h.keyPath, "-o", `UserKnownHostsFile=${h.knownHostsPath}`, "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10"];
  const quoted = argv.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(" ");
  return new Promise((resolve) => {
    const p = spawn("ssh", [...opts, "-p", String(port), `${h.user}@${h.address}`, "--", quoted], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    p.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    p.on("close", (code) => resolve({ code: code ?? 255, stdout, stderr }));
  });
}

const vm = (h: SecondHost, ...args: string[]) => ssh(h, [...h.vmCli, ...args, "--uri", h.libvirtUri, "--disks-dir", h.disksDir, "--images-dir", h.imagesDir]);

beforeAll(async () => {
  await ensureLibvirtd(URI);
  ensureTestImage();
  [b, c] = await Promise.all([startSecondHost({ name: "b" }), startSecondHost({ name: "c" })]);
}, 300_000);

afterAll(async () => {
  mainVirsh("undefine", `${PREFIX}-main`);
  await Promise.all([b?.stop(), c?.stop()]);
  release?.();
}, 300_000);

describe("extra libvirt hosts on this machine", () => {
  it("start with what svc-hosts add needs", () => {
    for (const h of [b, c]) {
      expect(h.sshTarget).toBe(`root@127.0.0.1:${h.port}`);
      expect(readFileSync(h.knownHostsPath, "utf8")).toBe(`[127.0.0.1]:${h.port} ${h.hostKey}\n`);
      expect(h.addArgs()).toEqual(expect.arrayContaining(["add", h.name, "--ssh", h.sshTarget, "--key", h.keyPath, "--libvirt-uri", URI]));
      expect(existsSync(join(h.imagesDir, TEST_IMAGE_NAME, "disk.qcow2"))).toBe(true);
    }
    expect(b.port).not.toBe(c.port);
  });

  it("a domain defined on one host is seen by no other, the machine's own libvirt included", async () => {
    for (const [where, name] of [
      [b, `${PREFIX}-b`],
      [c, `${PREFIX}-c`],
    ] as const) {
      writeFileSync(join(where.dir, `${name}.xml`), xml(name));
      where.virsh("define", join(where.dir, `${name}.xml`));
    }
    writeFileSync(join(b.dir, "main.xml"), xml(`${PREFIX}-main`));
    expect(mainVirsh("define", join(b.dir, "main.xml")).status).toBe(0);

    const mine = (names: string[]) => names.filter((n) => n.startsWith(PREFIX)).sort();
    expect(mine(b.domains())).toEqual([`${PREFIX}-b`]);
    expect(mine(c.domains())).toEqual([`${PREFIX}-c`]);
    expect(mine(mainDomains())).toEqual([`${PREFIX}-main`]);
    // The SSH session runs in the host's namespace: its qemu:///system is the host's libvirtd.
    const overSsh = await ssh(b, ["virsh", "--connect", URI, "list", "--all", "--name"]);
    expect(overSsh.code).toBe(0);
    expect(mine(overSsh.stdout.split("\n").filter(Boolean))).toEqual([`${PREFIX}-b`]);
    expect(mine((await ssh(c, ["virsh", "--connect", URI, "list", "--all", "--name"])).stdout.split("\n").filter(Boolean))).toEqual([`${PREFIX}-c`]);
  });

  it("svc-vm run through the SSH session creates, lists and deletes a VM on that host only", async () => {
    release = await acquireVmTestLock();
    const name = `${PREFIX}-vm`;
    const created = await vm(b, "create", "vm", name, "-i", TEST_IMAGE_NAME, "--ssh-key", `${b.keyPath}.pub`, "--wait", "-o", "json");
    expect(created.stderr).not.toMatch(/error/i);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ name, state: "running", created: true, ssh_host: "127.0.0.1" });
    expect(b.domains()).toContain(name);
    expect(c.domains()).not.toContain(name);
    expect(mainDomains()).not.toContain(name);
    // Its disks are in b's disks directory.
    expect(existsSync(join(b.disksDir, name, "root.qcow2"))).toBe(true);

    const listed = await vm(b, "list", "vm", "-o", "json");
    expect((JSON.parse(listed.stdout) as { name: string }[]).map((v) => v.name)).toContain(name);
    const onC = await vm(c, "info", "vm", name, "-o", "json");
    expect(onC.code).toBe(3);

    const deleted = await vm(b, "delete", "vm", name, "-y", "-o", "json");
    expect(deleted.code).toBe(0);
    expect(b.domains()).not.toContain(name);
    release();
    release = undefined;
  }, 600_000);

  it("stops and restarts only its sshd: libvirt and the domains stay, the host key is the same", async () => {
    await b.stopSshd();
    const down = await ssh(b, ["true"]);
    expect(down.code).toBe(255);
    expect(down.stderr).toMatch(/refused/i);
    expect(b.domains()).toContain(`${PREFIX}-b`);
    expect((await ssh(c, ["true"])).code).toBe(0);
    await b.startSshd();
    // StrictHostKeyChecking=yes against the pinned key: the restarted sshd presents the same one.
    const up = await ssh(b, ["virsh", "--connect", URI, "list", "--all", "--name"]);
    expect(up.code).toBe(0);
    expect(up.stdout).toContain(`${PREFIX}-b`);
  });

  it("stop() destroys its domains, ends its daemons and removes its directory", async () => {
    const d = await startSecondHost({ name: "d", images: [] });
    writeFileSync(join(d.dir, "d.xml"), xml(`${PREFIX}-d`));
    d.virsh("define", join(d.dir, "d.xml"));
    const pids = ["libvirtd.pid", "virtlogd.pid"].map((f) => Number(readFileSync(join(d.dir, f), "utf8")));
    await d.stop();
    expect(existsSync(d.dir)).toBe(false);
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
    expect(mainDomains()).not.toContain(`${PREFIX}-d`);
  }, 120_000);
});
