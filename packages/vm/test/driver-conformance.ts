import { ImageNotFoundError, VmExistsError, VmInputError, VmNotFoundError } from "../src/errors";
import { type VmDriver, type VmSpec } from "../src/types";

/** What the conformance suite needs from a driver under test. */
export interface ConformanceTarget {
  driver: VmDriver;
  image: string;
  /** VM names start with this (unique per run). */
  prefix: string;
  nets: string[];
  sshKeys: string[];
  /** What info reports for 384 MiB and 1 vCPU where the driver rounds up to a size (clouds); else exactly that. */
  sized?: { memory_mb: number; cpus: number };
  /** A change of spec the driver sees as another VM (default 768 MiB; a cloud whose smallest size holds both needs more). */
  otherSpec?: Partial<VmSpec>;
}

/** One behavioural contract, run against every VmDriver (libvirt for real, kcli through its argv). */
export function describeVmDriverConformance(label: string, target: () => ConformanceTarget): void {
  describe(`VmDriver conformance: ${label}`, () => {
    const spec = (over: Partial<VmSpec> = {}): VmSpec => {
      const t = target();
      return { name: `${t.prefix}-c1`, image: t.image, memoryMb: 384, cpus: 1, disksGb: [], nets: t.nets, sshKeys: t.sshKeys, ...over };
    };

    it("lists the image it will create from", async () => {
      const images = await target().driver.listImages();
      expect(images.map((i) => i.name)).toContain(target().image);
    });

    it("creates a VM that info and list then report as running with its spec", async () => {
      const t = target();
      const r = await t.driver.create(spec());
      expect(r.created).toBe(true);
      const info = await t.driver.info(spec().name);
      expect(info).toMatchObject({ name: spec().name, state: "running", image: t.image, memory_mb: t.sized?.memory_mb ?? 384, cpus: t.sized?.cpus ?? 1, driver: t.driver.name });
      expect(info.ssh_host).toBeTruthy();
      expect(info.ssh_port).toBeGreaterThan(0);
      expect((await t.driver.list()).map((v) => v.name)).toContain(spec().name);
    });

    it("treats a second create with the same spec as success without change", async () => {
      const r = await target().driver.create(spec());
      expect(r.created).toBe(false);
      expect(r.info.state).toBe("running");
    });

    it("refuses a create that reuses the name with another spec", async () => {
      await expect(target().driver.create(spec(target().otherSpec ?? { memoryMb: 768 }))).rejects.toBeInstanceOf(VmExistsError);
    });

    it("rejects invalid names before touching the hypervisor", async () => {
      for (const name of ["Upper", "1abc", "a_b", "a b", "-rf", "$(id)", "a".repeat(64), ""]) {
        await expect(target().driver.create(spec({ name }))).rejects.toBeInstanceOf(VmInputError);
        await expect(target().driver.info(name)).rejects.toBeInstanceOf(VmInputError);
      }
    });

    it("names the available images when the image is unknown", async () => {
      const err = await target()
        .driver.create(spec({ name: `${target().prefix}-noimg`, image: "no-such-image" }))
        .catch((e) => e);
      expect(err).toBeInstanceOf(ImageNotFoundError);
      expect(err.message).toContain(target().image);
    });

    it("deletes the VM, after which info says not found", async () => {
      const r = await target().driver.delete(spec().name);
      expect(r).toMatchObject({ name: spec().name, deleted: true });
      await expect(target().driver.info(spec().name)).rejects.toBeInstanceOf(VmNotFoundError);
      expect((await target().driver.list()).map((v) => v.name)).not.toContain(spec().name);
    });

    it("deleting a VM that does not exist succeeds with a note", async () => {
      const r = await target().driver.delete(spec().name);
      expect(r.deleted).toBe(false);
      expect(r.note).toMatch(/does not exist/);
    });
  });
}
