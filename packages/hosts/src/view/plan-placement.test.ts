import { sampleCapacity } from "@svc/testing";
import type { HostCapacity, HostRecord } from "../types";
import { planPlacement } from "./plan-placement";
import { describeRoom, hostRoom } from "./room";

const NOW = Date.parse("2026-01-01T12:00:00.000Z");
const ago = (s: number) => new Date(NOW - s * 1000).toISOString();

const cap = (o: Partial<HostCapacity> = {}): HostCapacity => sampleCapacity({ probed_at: ago(5), ...o });

function rec(name: string, c: HostCapacity | null, o: Partial<HostRecord> = {}): HostRecord {
  return {
    name,
    ssh_user: "root",
    address: "10.0.0.1",
    port: 22,
    key_path: "/k",
    host_key: null,
    libvirt_uri: "qemu:///system",
    images_dir: "/i",
    disks_dir: "/d",
    labels: {},
    state: "active",
    reserve_memory_mb: 1024,
    reserve_disk_gb: 10,
    reserve_vcpus: 0,
    cpu_ratio: 2,
    last_probe: c,
    probed_at: c?.probed_at ?? null,
    probe_error: null,
    created_by: "test",
    created_at: ago(100),
    updated_at: ago(100),
    provider: "libvirt",
    provider_settings: {},
    ...o,
  };
}

const VM = { task_id: "create_vm", vm_name: "web03", request: { image: "alpha", memoryMb: 2048, cpus: 1, disksGb: [10] } };
const opts = { weigher: "spread" as const, maxProbeAgeMs: 30_000, now: NOW };

describe("planPlacement", () => {
  test("with two hosts up it names the host placement chooses (the emptier) and each host's verdict with its numbers", () => {
    // a's VMs hold 10000 MiB (b's 2048): b is the emptier; a's free memory (4000) still fits the VM.
    const p = planPlacement([VM], [rec("a", cap({ memory_free_mb: 4000, memory_committed_mb: 10000 })), rec("b", cap())], opts)!;
    expect(p.vms[0]).toMatchObject({ host: "b", pinned: null, blocked: false, memory_mb: 2048 });
    expect(p.vms[0]!.verdicts.map((v) => [v.host, v.fits, v.numbers?.memory_free_mb])).toEqual([
      ["a", true, 2976],
      ["b", true, 10976],
    ]);
    expect(p.summary).toMatch(/VM 'web03' would be placed on host 'b' \(spread/);
  });

  test("a host param pins the VM: the plan says so and whether the pinned host fits", () => {
    const p = planPlacement([{ ...VM, request: { ...VM.request, host: "a" } }], [rec("a", cap({ memory_free_mb: 4000 })), rec("b", cap())], opts)!;
    expect(p.vms[0]).toMatchObject({ host: "a", pinned: "a", blocked: false });
    expect(p.summary).toMatch(/goes to host 'a', pinned by the host param; it fits/);
  });

  test("no host fits: null host, each host's reasons, and the run would fail before creating anything", () => {
    const big = { ...VM, request: { ...VM.request, memoryMb: 65536 } };
    const p = planPlacement([big], [rec("a", cap()), rec("b", null, { probe_error: "cannot reach root@10.0.0.2:22: ECONNREFUSED" })], opts)!;
    expect(p.blocked).toBe(true);
    expect(p.vms[0]!.host).toBeNull();
    expect(p.summary).toMatch(/No host fits VM 'web03' now: a: memory: 65536 MiB asked, 10976 MiB free/);
    expect(p.summary).toMatch(/b: down: cannot reach/);
    expect(p.summary).toMatch(/The run would fail at create_vm before creating anything/);
  });

  test("a single-host install (only local, never probed) and a plan without VMs show no placement", () => {
    expect(planPlacement([VM], [rec("local", null)], opts)).toBeNull();
    expect(planPlacement([], [rec("a", cap()), rec("b", cap())], opts)).toBeNull();
  });
});

describe("hostRoom / describeRoom", () => {
  test("free is after the reserve, vCPUs count the CPU ratio, and a stale or failed probe is said as such", () => {
    const rooms = [rec("a", cap({ vm_count: 3 })), rec("b", cap({ probed_at: ago(120) })), rec("c", cap(), { probe_error: "probe timed out after 20 s", probed_at: ago(3) })].map(
      (r) => hostRoom(r, 30_000, NOW),
    );
    expect(rooms[0]).toMatchObject({
      up: true,
      memory_free_mb: 10976,
      memory_total_mb: 16384,
      vcpus_free: 14,
      vcpus_total: 16,
      disk_free_gb: 190,
      disk_total_gb: 500,
      vm_count: 3,
      age_s: 5,
    });
    expect(rooms[1]).toMatchObject({ up: false, down_reason: "not probed for 120 s" });
    expect(rooms[2]).toMatchObject({ up: false, down_reason: "probe timed out after 20 s" });
    const text = describeRoom(rooms);
    expect(text).toMatch(/- a \(active\): up \(probed 5 s ago\); memory 10976 of 16384 MiB free, vCPUs 14 of 16 free, disk 190 of 500 GB free, 3 VM\(s\)/);
    expect(text).toMatch(/- b \(active\): DOWN: not probed for 120 s; its last good probe \(120 s old, not counted by placement\)/);
    expect(text).toMatch(/- c \(active\): DOWN: probe timed out after 20 s/);
    expect(text).toMatch(/Most free memory: a \(10976 MiB\)\./);
  });
});

describe("cloud hosts in the plan and the room answer", () => {
  const aws = rec("aws-eu", null, { provider: "aws", provider_settings: { region: "eu-west-1", credentials: "secrets-file" }, address: "ec2.eu-west-1.amazonaws.com", port: 443 });
  const bad = rec("hz-bad", null, { provider: "hetzner", provider_settings: { location: "fsn1" }, probe_error: "unauthorized: unable to authenticate", probed_at: ago(3) });
  const vm = (host?: string) => ({ task_id: "create_vm", vm_name: "web01", request: { image: "debian12", memoryMb: 2048, cpus: 2, disksGb: [20], ...(host ? { host } : {}) } });

  test("a VM naming no host goes to the libvirt host; pinned to a cloud host, the preview names its provider and region", () => {
    const o = { weigher: "spread" as const, maxProbeAgeMs: 30_000, now: NOW };
    const free = planPlacement([vm()], [rec("a", cap({ images: ["debian12"] })), aws], o)!;
    expect(free.vms[0]).toMatchObject({ host: "a", provider: "libvirt", region: null, blocked: false });
    const pinned = planPlacement([vm("aws-eu")], [rec("a", cap()), aws], o)!;
    expect(pinned.vms[0]).toMatchObject({ host: "aws-eu", provider: "aws", region: "eu-west-1", blocked: false });
    expect(pinned.summary).toBe("VM 'web01' goes to the aws host 'aws-eu' (eu-west-1), pinned by the host param.");
    const down = planPlacement([vm("hz-bad")], [rec("a", cap()), bad], o)!;
    expect(down.summary).toMatch(/its last identity call failed \(unauthorized: unable to authenticate\): the create will fail until its credentials work/);
  });

  test("the room answer says what a cloud host is, up or down with the provider's error, and counts no capacity for it", () => {
    const text = describeRoom([rec("a", cap()), aws, bad].map((r) => hostRoom(r, 30_000, NOW)));
    expect(text).toMatch(
      /- aws-eu \(active\): a aws host in eu-west-1, up; a cloud account, no host capacity: a VM there bills it, and placement takes it only when a request names it/,
    );
    expect(text).toMatch(/- hz-bad \(active\): a hetzner host in fsn1, DOWN: unauthorized: unable to authenticate;/);
    expect(text).toMatch(/Most free memory: a \(/);
  });
});
