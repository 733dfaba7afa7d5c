import { existsSync, readdirSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { LocalExecutor, type HostExecutor } from "@svc/host";
import { acquireVmTestLock, createVmScratch, ensureLibvirtd, ensureTestImage, type VmScratch } from "@svc/testing";
import { LibvirtDriver } from "../src/libvirt/driver";
import { LibvirtUnavailableError } from "../src/errors";
import { type VmSettings } from "../src/settings";
import { describeVmDriverConformance } from "./driver-conformance";

jest.setTimeout(600_000);

const prefix = `svct-${randomBytes(3).toString("hex")}`;
let release: () => void = () => undefined;
let scratch: VmScratch;
let driver: LibvirtDriver;
let image = "";
let settings: VmSettings;

beforeAll(async () => {
  release = await acquireVmTestLock();
  await ensureLibvirtd();
  const img = ensureTestImage();
  image = img.image;
  scratch = createVmScratch("libvirt");
  settings = { imagesDir: img.imagesDir, disksDir: scratch.disksDir, libvirtUri: "qemu:///system", virtType: "auto", driver: "libvirt", sshPubkeyPaths: [] };
  driver = new LibvirtDriver({ ex: new LocalExecutor({ env: process.env }), settings });
}, 1_200_000);

afterAll(() => {
  scratch?.cleanup(prefix);
  release();
});

describeVmDriverConformance("libvirt on qemu:///system", () => ({ driver, image, prefix, nets: ["user"], sshKeys: [scratch.pubKey] }));

describe("libvirt driver specifics", () => {
  it("left no overlay, seed or console files behind after delete", () => {
    expect(existsSync(scratch.disksDir) ? readdirSync(scratch.disksDir) : []).toEqual([]);
  });

  it("says libvirt is not running, and how to start it, when the daemon cannot be reached", async () => {
    const down = new LibvirtDriver({ ex: new LocalExecutor({ env: process.env }), settings: { ...settings, libvirtUri: "qemu:///system?socket=/tmp/svc-no-libvirt.sock" } });
    const err = await down.list().catch((e) => e);
    expect(err).toBeInstanceOf(LibvirtUnavailableError);
    expect(err.message).toMatch(/libvirt is not reachable .*libvirtd -d/);
    await expect(down.create({ name: `${prefix}-down`, image, memoryMb: 256, cpus: 1, disksGb: [], nets: ["user"], sshKeys: [scratch.pubKey] })).rejects.toBeInstanceOf(
      LibvirtUnavailableError,
    );
  });

  it("keeps a VM's files when rolling back a failed create cannot remove its domain (no orphaned domain), and says so", async () => {
    const name = `${prefix}-rb`;
    // The real executor, except that starting and undefining this one domain fail.
    const real = new LocalExecutor({ env: process.env });
    const failing: HostExecutor = {
      target: real.target,
      run: (argv, opts) =>
        argv[0] === "virsh" && (argv.includes("start") || argv.includes("undefine")) && argv[argv.length - 1] === name
          ? Promise.resolve({ code: 1, stdout: "", stderr: `error: injected failure of ${argv[3]}` })
          : real.run(argv, opts),
      close: () => real.close(),
    };
    const broken = new LibvirtDriver({ ex: failing, settings });
    const err: Error = await broken.create({ name, image, memoryMb: 256, cpus: 1, disksGb: [], nets: ["user"], sshKeys: [scratch.pubKey] }).catch((e) => e);
    try {
      expect(err.message).toMatch(/injected failure of start/);
      expect(err.message).toMatch(new RegExp(`rolling back, removing domain ${name} failed too .*its files in .*${name} were kept`));
      // The domain is still defined, and the disk it points at is still there.
      const info = await driver.info(name);
      expect(info.state).toMatch(/shut ?off|stopped/i);
      expect(existsSync(join(scratch.disksDir, name))).toBe(true);
      expect(readdirSync(join(scratch.disksDir, name)).length).toBeGreaterThan(0);
    } finally {
      await driver.delete(name);
    }
    await expect(driver.info(name)).rejects.toThrow(/not found|no VM|does not exist/i);
    expect(existsSync(join(scratch.disksDir, name))).toBe(false);
  });
});
