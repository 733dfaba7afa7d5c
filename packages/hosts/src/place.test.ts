import { sampleCapacity } from "@svc/testing";
import { describePlacement, place, type PlacementHost, type PlacementRequest } from "./place";
import type { HostCapacity } from "./types";

const cap = (o: Partial<HostCapacity> = {}): HostCapacity => sampleCapacity({ images: ["debian12", "test"], probed_at: "2025-01-01T00:00:00.000Z", ...o });

function host(name: string, c: Partial<HostCapacity> | null = {}, o: Partial<PlacementHost> = {}): PlacementHost {
  return { name, state: "active", reserve_memory_mb: 512, reserve_disk_gb: 5, reserve_vcpus: 0, cpu_ratio: 1, capacity: c === null ? null : cap(c), ...o };
}

const VM: PlacementRequest = { image: "debian12", memoryMb: 2048, cpus: 2, disksGb: [20] };

describe("place: filters", () => {
  it("drops a host that is down, with the probe's reason", () => {
    const p = place(VM, [host("a", null, { down_reason: "cannot reach root@10.0.0.2:22: ECONNREFUSED" }), host("b")]);
    expect(p.host).toBe("b");
    expect(p.verdicts.find((v) => v.host === "a")).toMatchObject({ fits: false, reasons: ["down: cannot reach root@10.0.0.2:22: ECONNREFUSED"], numbers: null });
  });

  it("drops a draining host", () => {
    const p = place(VM, [host("a", {}, { state: "draining" }), host("b", { memory_free_mb: 4000 })]);
    expect(p.host).toBe("b");
    expect(p.verdicts[0]).toMatchObject({ host: "a", fits: false, reasons: ["draining"] });
  });

  it("drops a host without the image; an ISO boot (no image) skips the filter", () => {
    const hosts = [host("a", { images: ["test"] })];
    expect(place(VM, hosts).verdicts[0]!.reasons).toEqual(["no image 'debian12'"]);
    expect(place({ ...VM, image: undefined }, hosts).host).toBe("a");
  });

  it("counts memory after the reserve, and never more than the running VMs leave uncommitted", () => {
    // 2048 asked: 2600 - 512 = 2088 fits; 2500 - 512 = 1988 does not.
    expect(place(VM, [host("a", { memory_free_mb: 2600 })]).host).toBe("a");
    const tight = place(VM, [host("a", { memory_free_mb: 2500 })]);
    expect(tight.host).toBeNull();
    expect(tight.verdicts[0]!.reasons).toEqual(["memory: 2048 MiB asked, 1988 MiB free after a 512 MiB reserve"]);
    // Plenty free now, but the running VMs may take it: 16384 - 15000 - 512 = 872.
    const committed = place(VM, [host("a", { memory_committed_mb: 15000 })]);
    expect(committed.verdicts[0]).toMatchObject({ fits: false, numbers: { memory_free_mb: 872 } });
  });

  it("counts every disk of the VM against the free disk after the reserve", () => {
    const p = place({ ...VM, disksGb: [20, 10] }, [host("a", { disk_free_gb: 34 }), host("b", { disk_free_gb: 35 })]);
    expect(p.host).toBe("b");
    expect(p.verdicts[0]!.reasons).toEqual(["disk: 30 GB asked, 29 GB free after a 5 GB reserve"]);
  });

  it("counts vCPUs with the allocation ratio, the running VMs and the reserve", () => {
    // 8 x 1 - 2 used - 5 reserved = 1 < 2
    const p = place(VM, [host("a", {}, { reserve_vcpus: 5 })]);
    expect(p.verdicts[0]!.reasons).toEqual(["vcpus: 2 asked, 1 free (8 x 1 - 2 used - 5 reserved)"]);
    expect(place(VM, [host("a", {}, { reserve_vcpus: 5, cpu_ratio: 2 })]).host).toBe("a");
  });

  it("no host fits: null, and each host's reasons", () => {
    const p = place(VM, [host("a", null), host("b", { images: [] }, { state: "draining" }), host("c", { disk_free_gb: 1 })]);
    expect(p.host).toBeNull();
    expect(p.verdicts.map((v) => [v.host, v.reasons.length > 0])).toEqual([
      ["a", true],
      ["b", true],
      ["c", true],
    ]);
    expect(p.verdicts[1]!.reasons).toEqual(["draining", "no image 'debian12'"]);
    expect(describePlacement(p)[0]).toBe("no host fits (spread)");
  });
});

describe("place: weighers", () => {
  const small = host("small", { memory_free_mb: 4096, memory_committed_mb: 10000, disk_free_gb: 50, vcpus_used: 6 });
  const big = host("big", { memory_free_mb: 12000, disk_free_gb: 300, vcpus_used: 0 });

  it("spread (the default) takes the host with the most left", () => {
    const p = place(VM, [small, big]);
    expect(p).toMatchObject({ host: "big", weigher: "spread" });
    expect(p.verdicts.find((v) => v.host === "big")!.weight).toBeCloseTo(3);
  });

  it("pack takes the fullest host that still fits", () => {
    expect(place(VM, [small, big], "pack").host).toBe("small");
  });

  it("weighs memory as the VMs leave it: a host with fewer VMs wins although its page cache left less free", () => {
    // Two alike hosts, one VM more on b; a's probe caught 2 GiB less free memory and 1 GB less disk.
    const a = host("a", { memory_free_mb: 10000, memory_committed_mb: 0, vcpus_used: 0, disk_free_gb: 199 });
    const b = host("b", { memory_free_mb: 12000, memory_committed_mb: 128, vcpus_used: 1, disk_free_gb: 200 });
    const p = place({ ...VM, memoryMb: 128, cpus: 1 }, [b, a]);
    expect(p.host).toBe("a");
    // The disk's 1 GB is 1/10 of the 5% span floor (200 - 5 - 20 = 175 GB left; 8.75 GB floor).
    expect(p.verdicts.find((v) => v.host === "b")!.weight).toBeCloseTo(1 / 8.75, 3);
  });

  it("a difference under 5% of the largest value weighs in proportion, not as a whole point", () => {
    const a = host("a", { memory_committed_mb: 0, vcpus_used: 0, disk_free_gb: 200 });
    const b = host("b", { memory_committed_mb: 0, vcpus_used: 0, disk_free_gb: 201 });
    expect(place(VM, [a, b]).verdicts.find((v) => v.host === "b")!.weight).toBeLessThan(0.2);
    expect(place(VM, [a, host("c", { memory_committed_mb: 0, vcpus_used: 0, disk_free_gb: 400 })]).verdicts.find((v) => v.host === "c")!.weight).toBeCloseTo(1);
  });

  it("breaks ties by name, whatever the order given", () => {
    expect(place(VM, [host("z"), host("m")]).host).toBe("m");
    expect(place(VM, [host("z"), host("m")], "pack").host).toBe("m");
  });

  it("writes the choice and the numbers, one line per host", () => {
    const lines = describePlacement(place(VM, [small, big]));
    expect(lines[0]).toBe("placed on 'big' (spread)");
    expect(lines).toContain("  big: fits (memory 11488 MiB, disk 295 GB, vcpus 8 free, weight 3.000)");
  });
});

describe("place: a pinned host", () => {
  it("is taken when it fits, even when the weigher prefers another", () => {
    const p = place({ ...VM, host: "a" }, [host("a", { memory_free_mb: 3000 }), host("b")]);
    expect(p.host).toBe("a");
    expect(p.verdicts.find((v) => v.host === "b")!.reasons).toEqual(["not the pinned host 'a'"]);
  });

  it("is refused with its reason when it does not fit (no other host is chosen)", () => {
    const p = place({ ...VM, host: "a" }, [host("a", {}, { state: "draining" }), host("b")]);
    expect(p.host).toBeNull();
    expect(p.verdicts.find((v) => v.host === "a")!.reasons).toEqual(["draining"]);
  });

  it("is refused when it is not in the inventory", () => {
    const p = place({ ...VM, host: "ghost" }, [host("a")]);
    expect(p.host).toBeNull();
    expect(p.verdicts.find((v) => v.host === "ghost")!.reasons).toEqual(["not in the inventory"]);
  });
});
