import { existsSync, readdirSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { LocalExecutor } from "@svc/host";
import { acquireVmTestLock, createVmScratch, ensureLibvirtd, ensureTestImage, type VmScratch } from "@svc/testing";
import { LibvirtDriver, LibvirtUnavailableError, type VmSettings } from "../src";
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
  driver = new LibvirtDriver({ ex: new LocalExecutor(), settings });
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
    const down = new LibvirtDriver({ ex: new LocalExecutor(), settings: { ...settings, libvirtUri: "qemu:///system?socket=/tmp/svc-no-libvirt.sock" } });
    const err = await down.list().catch((e) => e);
    expect(err).toBeInstanceOf(LibvirtUnavailableError);
    expect(err.message).toMatch(/libvirt is not reachable .*libvirtd -d/);
    await expect(down.create({ name: `${prefix}-down`, image, memoryMb: 256, cpus: 1, disksGb: [], nets: ["user"], sshKeys: [scratch.pubKey] })).rejects.toBeInstanceOf(
      LibvirtUnavailableError,
    );
  });
});
