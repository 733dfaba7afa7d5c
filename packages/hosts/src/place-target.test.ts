import { sampleCapacity } from "@svc/testing";
import { place, type PlacementHost, type PlacementRequest } from "./place";

const lib = (name: string, o: Partial<PlacementHost> = {}): PlacementHost => ({
  name,
  state: "active",
  reserve_memory_mb: 512,
  reserve_disk_gb: 5,
  reserve_vcpus: 0,
  cpu_ratio: 1,
  capacity: sampleCapacity({ images: ["debian12"], probed_at: "2025-01-01T00:00:00.000Z" }),
  ...o,
});
const cloud = (name: string, provider: "aws" | "hetzner", region: string, o: Partial<PlacementHost> = {}): PlacementHost => ({
  ...lib(name),
  capacity: null,
  provider,
  region,
  ...o,
});

const VM: PlacementRequest = { image: "debian12", memoryMb: 2048, cpus: 2, disksGb: [20] };
const AWS = cloud("aws-eu", "aws", "eu-west-1");
const HZ = cloud("hz-fsn", "hetzner", "fsn1", { labels: { tier: "edge" } });

describe("place: cloud hosts are chosen only when the request asks for them", () => {
  it("a request that names nothing goes to a libvirt host, never to a cloud host, whatever their room", () => {
    const p = place(VM, [AWS, HZ, lib("b")]);
    expect(p.host).toBe("b");
    expect(p.verdicts.find((v) => v.host === "aws-eu")).toMatchObject({
      fits: false,
      reasons: [expect.stringMatching(/^a aws host in eu-west-1: chosen only when the request names/)],
    });
  });

  it("with only cloud hosts and nothing named, no host is chosen (no bill by surprise)", () => {
    const p = place(VM, [AWS, HZ, lib("full", { capacity: null, down_reason: "ECONNREFUSED" })]);
    expect(p.host).toBeNull();
  });

  it("naming the provider picks its host and drops the libvirt ones with the reason", () => {
    const p = place({ ...VM, provider: "aws" }, [AWS, HZ, lib("b")]);
    expect(p.host).toBe("aws-eu");
    expect(p.verdicts.find((v) => v.host === "b")!.reasons).toEqual(["provider libvirt, not aws"]);
    expect(p.verdicts.find((v) => v.host === "hz-fsn")!.reasons[0]).toMatch(/^a hetzner host in fsn1/);
  });

  it("naming the region picks the host there; provider and region together must both match", () => {
    expect(place({ ...VM, region: "fsn1" }, [AWS, HZ, lib("b")]).host).toBe("hz-fsn");
    const wrong = place({ ...VM, provider: "aws", region: "fsn1" }, [AWS, HZ]);
    expect(wrong.host).toBeNull();
    expect(wrong.verdicts.find((v) => v.host === "aws-eu")!.reasons).toEqual(["region eu-west-1, not fsn1"]);
    expect(wrong.verdicts.find((v) => v.host === "hz-fsn")!.reasons).toEqual(["provider hetzner, not aws"]);
  });

  it("a label the request asks for picks the cloud host carrying it; a libvirt host without it is dropped", () => {
    const p = place({ ...VM, labels: { tier: "edge" } }, [AWS, HZ, lib("b")]);
    expect(p.host).toBe("hz-fsn");
    expect(p.verdicts.find((v) => v.host === "b")!.reasons).toEqual(["no label tier=edge"]);
  });

  it("a libvirt host that fits wins over an asked-for cloud host with the same label", () => {
    expect(place({ ...VM, labels: { tier: "edge" } }, [HZ, lib("b", { labels: { tier: "edge" } })]).host).toBe("b");
  });

  it("a cloud host whose credentials failed is down with the provider's message", () => {
    const bad = cloud("aws-eu", "aws", "eu-west-1", { down_reason: "AuthFailure: AWS was not able to validate the provided access credentials" });
    const p = place({ ...VM, provider: "aws" }, [bad]);
    expect(p.host).toBeNull();
    expect(p.verdicts[0]!.reasons).toEqual(["down: AuthFailure: AWS was not able to validate the provided access credentials"]);
  });

  it("a pinned cloud host is taken; pinned with a provider it does not have, it is refused", () => {
    expect(place({ ...VM, host: "hz-fsn" }, [AWS, HZ, lib("b")]).host).toBe("hz-fsn");
    const p = place({ ...VM, host: "hz-fsn", provider: "aws" }, [AWS, HZ]);
    expect(p.host).toBeNull();
    expect(p.verdicts.find((v) => v.host === "hz-fsn")!.reasons).toEqual(["provider hetzner, not aws"]);
  });

  it("libvirt placement is unchanged when nothing is asked: hosts without provider weigh as before", () => {
    const a = lib("a");
    const b = lib("b", { capacity: sampleCapacity({ images: ["debian12"], probed_at: "2025-01-01T00:00:00.000Z", disk_free_gb: 10 }) });
    expect(place(VM, [a, b]).host).toBe("a");
    expect(place({ ...VM, provider: "libvirt" }, [a, AWS]).host).toBe("a");
  });
});
