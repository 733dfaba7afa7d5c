import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listImages, resolveImage } from "./images";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-images-"));
  mkdirSync(join(dir, "kernel-img"));
  writeFileSync(join(dir, "kernel-img", "disk.qcow2"), Buffer.from("QFI\xfb0000", "latin1"));
  writeFileSync(join(dir, "kernel-img", "vmlinuz"), "");
  writeFileSync(join(dir, "kernel-img", "initrd.img"), "");
  writeFileSync(join(dir, "kernel-img", "image.json"), JSON.stringify({ description: "test", ssh_user: "root", cmdline: "root=/dev/vda", os: "debian12" }));
  mkdirSync(join(dir, "odd-os"));
  writeFileSync(join(dir, "odd-os", "disk.qcow2"), Buffer.from("QFI\xfb0000", "latin1"));
  writeFileSync(join(dir, "odd-os", "image.json"), JSON.stringify({ os: "Debian 12!", ssh_user: "debian" }));
  mkdirSync(join(dir, ".download-debian12-x"));
  writeFileSync(join(dir, ".download-debian12-x", "disk.qcow2"), Buffer.from("QFI\xfb0000", "latin1"));
  writeFileSync(join(dir, "cloud.qcow2"), Buffer.from("QFI\xfb0000", "latin1"));
  writeFileSync(join(dir, "raw-cloud.img"), "not qcow2");
  mkdirSync(join(dir, "empty-dir"));
  writeFileSync(join(dir, "notes.txt"), "");
  symlinkSync(join(dir, "missing"), join(dir, "dangling"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("images directory layout", () => {
  it("finds kernel-boot directories and cloud image files, skipping everything else (downloads being staged too)", () => {
    expect(listImages(dir).map((i) => [i.name, i.boot, i.diskFormat, i.keyInjection])).toEqual([
      ["cloud", "disk", "qcow2", "cloud-init"],
      ["kernel-img", "kernel", "qcow2", "cmdline"],
      ["odd-os", "disk", "qcow2", "cloud-init"],
      ["raw-cloud", "disk", "raw", "cloud-init"],
    ]);
  });

  it("reads image.json for the kernel command line and description", () => {
    expect(resolveImage(dir, "kernel-img")).toMatchObject({ description: "test", cmdline: "root=/dev/vda", kernel: join(dir, "kernel-img", "vmlinuz") });
  });

  it("reads the OS from image.json; unknown (null) without one or when it is not an OS name, the rest still read", () => {
    expect(listImages(dir).map((i) => [i.name, i.os])).toEqual([
      ["cloud", null],
      ["kernel-img", "debian12"],
      ["odd-os", null],
      ["raw-cloud", null],
    ]);
    expect(resolveImage(dir, "odd-os").sshUser).toBe("debian");
  });

  it("lists the available images when one is missing", () => {
    expect(() => resolveImage(dir, "nope")).toThrow(`image 'nope' not found in ${dir}; available: cloud, kernel-img, odd-os, raw-cloud`);
    expect(() => resolveImage(join(dir, "no-such-dir"), "x")).toThrow(/available: \(none\)/);
  });
});
