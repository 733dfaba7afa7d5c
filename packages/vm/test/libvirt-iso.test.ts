import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LocalExecutor } from "@svc/host";
import { acquireVmTestLock, createVmScratch, ensureLibvirtd, ensureTestImage, makeTestIso, type VmScratch } from "@svc/testing";
import { LibvirtDriver } from "../src/libvirt/driver";
import { VmExistsError, VmInputError } from "../src/errors";
import { type VmSpec } from "../src/types";

jest.setTimeout(600_000);

// A VM that boots an ISO on an empty disk with pinned MACs, on real libvirt: what the
// cluster workflow's nodes are. The ISO is a tiny data ISO (nothing boots from it; the
// firmware finds no OS and waits), which is enough to check what libvirt and qemu got.
// The second NIC sits on an isolated libvirt network of its own (no address, no forward),
// so the test sends nothing anywhere.
const id = randomBytes(3).toString("hex");
const name = `svct-${id}-iso`;
const NET = `svct-${id}`;
const MAC = "52:54:00:5a:1b:2c";
const MAC2 = "52:54:00:5a:1b:2d";
let release: () => void = () => undefined;
let scratch: VmScratch;
let driver: LibvirtDriver;
let isoDir = "";
let iso = "";

const virsh = (...args: string[]) => spawnSync("virsh", ["--connect", "qemu:///system", ...args], { encoding: "utf8" });
const spec = (over: Partial<VmSpec> = {}): VmSpec => ({ name, iso, memoryMb: 256, cpus: 1, disksGb: [1], nets: ["user", NET], macs: [MAC, MAC2], sshKeys: [], ...over });

beforeAll(async () => {
  release = await acquireVmTestLock();
  await ensureLibvirtd();
  const img = ensureTestImage();
  scratch = createVmScratch("iso");
  // qemu runs as its own user: the ISO's directory must be traversable.
  ({ dir: isoDir, iso } = makeTestIso("iso"));
  writeFileSync(join(isoDir, "net.xml"), `<network><name>${NET}</name><bridge name='svctbr${id}' stp='off'/></network>\n`);
  for (const args of [
    ["net-define", join(isoDir, "net.xml")],
    ["net-start", NET],
  ]) {
    const n = virsh(...args);
    if (n.status !== 0) throw new Error(`virsh ${args[0]} failed: ${n.stderr}`);
  }
  driver = new LibvirtDriver({
    ex: new LocalExecutor({ env: process.env }),
    settings: { imagesDir: img.imagesDir, disksDir: scratch.disksDir, libvirtUri: "qemu:///system", virtType: "auto", driver: "libvirt", sshPubkeyPaths: [] },
  });
}, 1_200_000);

afterAll(() => {
  scratch?.cleanup(name);
  virsh("net-destroy", NET);
  virsh("net-undefine", NET);
  if (isoDir) rmSync(isoDir, { recursive: true, force: true });
  release();
});

describe("libvirt: an ISO on an empty disk with pinned MACs", () => {
  it("creates and starts the VM without an image or SSH key; info reports the ISO and the MACs", async () => {
    const r = await driver.create(spec());
    expect(r.created).toBe(true);
    expect(r.info).toMatchObject({ name, state: "running", image: null, iso, macs: [MAC, MAC2], nets: ["user", NET], ssh_host: "127.0.0.1", ssh_user: null });
    expect(r.info.disks).toEqual([{ path: join(scratch.disksDir, name, "root.qcow2"), size_gb: 1 }]);
  });

  it("made the disk empty (no backing image) and gave libvirt the CD-ROM, the boot order and the MACs", () => {
    const img = spawnSync("qemu-img", ["info", "-U", "--output=json", join(scratch.disksDir, name, "root.qcow2")], { encoding: "utf8" });
    const disk = JSON.parse(img.stdout) as { "virtual-size": number; "backing-filename"?: string };
    expect(disk["virtual-size"]).toBe(1024 ** 3);
    expect(disk["backing-filename"]).toBeUndefined();
    const xml = virsh("dumpxml", name).stdout;
    expect(xml).toMatch(new RegExp(`<disk type='file' device='cdrom'>[\\s\\S]*?<source file='${iso}'[\\s\\S]*?<readonly/>`));
    expect(xml).toMatch(/<boot dev='hd'\/>\s*<boot dev='cdrom'\/>/);
    expect(xml).toContain(`virtio-net-pci,netdev=svcnet0,bus=pci.0,addr=0x1f,mac=${MAC}`);
    expect(xml).toMatch(new RegExp(`<interface type='network'>\\s*<mac address='${MAC2}'/>\\s*<source network='${NET}'`));
    expect(virsh("domiflist", name).stdout).toMatch(new RegExp(`network\\s+${NET}\\s+virtio\\s+${MAC2}`));
  });

  it("the running qemu has the CD-ROM inserted and both NICs on their pinned MACs", () => {
    const blocks = virsh("qemu-monitor-command", name, "--hmp", "info block").stdout;
    expect(blocks).toContain(iso);
    const net = virsh("qemu-monitor-command", name, "--hmp", "info network").stdout;
    expect(net).toContain(`macaddr=${MAC}`);
    expect(net).toContain(`macaddr=${MAC2}`);
  });

  it("is idempotent for the same ISO and MACs, and refuses another MAC or ISO", async () => {
    expect((await driver.create(spec())).created).toBe(false);
    await expect(driver.create(spec({ macs: [MAC2, MAC] }))).rejects.toBeInstanceOf(VmExistsError);
    await expect(driver.create(spec({ iso: join(isoDir, "other.iso") }))).rejects.toThrow(/iso: has /);
  });

  it("refuses an ISO that is not there before creating anything", async () => {
    const err = await driver.create(spec({ name: `${name}-x`, iso: join(isoDir, "missing.iso") })).catch((e) => e);
    expect(err).toBeInstanceOf(VmInputError);
    expect(err.message).toMatch(/missing\.iso: no such file/);
    expect(existsSync(join(scratch.disksDir, `${name}-x`))).toBe(false);
  });

  it("delete removes the VM and its disk, and leaves the ISO in place", async () => {
    expect(await driver.delete(name)).toEqual({ name, deleted: true });
    expect(virsh("domstate", name).status).not.toBe(0);
    expect(existsSync(join(scratch.disksDir, name))).toBe(false);
    expect(existsSync(iso)).toBe(true);
  });
});
