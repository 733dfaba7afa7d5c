import type { VmSpec } from "../types";
import type { SvcVmMeta } from "./domain-xml";
import { specDiff } from "./spec-diff";

const meta: SvcVmMeta = {
  image: null,
  iso: "/srv/agent.iso",
  memory_mb: 1024,
  cpus: 2,
  disks_gb: [20],
  nets: ["default"],
  macs: ["52:54:00:0a:1b:2c"],
  ssh_port: null,
  ssh_user: null,
  vm_dir: "/var/lib/svc/vms/n0",
};
const spec: VmSpec = { name: "n0", iso: "/srv/agent.iso", memoryMb: 1024, cpus: 2, disksGb: [20], nets: ["default"], macs: ["52:54:00:0a:1b:2c"], sshKeys: [] };

describe("is an existing VM the one asked for", () => {
  it("is the same VM when image, ISO, sizes, networks and MACs match", () => {
    expect(specDiff(spec, meta)).toBe("");
  });

  it("names each difference, including the ISO and the MACs", () => {
    expect(specDiff({ ...spec, iso: "/srv/other.iso" }, meta)).toBe('iso: has "/srv/agent.iso", asked "/srv/other.iso"');
    expect(specDiff({ ...spec, macs: ["52:54:00:0a:1b:2d"] }, meta)).toBe('macs: has ["52:54:00:0a:1b:2c"], asked ["52:54:00:0a:1b:2d"]');
    expect(specDiff({ ...spec, iso: undefined, image: "debian-test" }, meta)).toBe('image: has null, asked "debian-test"; iso: has "/srv/agent.iso", asked null');
  });

  it("keeps outbound in the spec: a router's uplink is not the same VM as a restricted one", () => {
    const user = { ...spec, nets: ["user", "default"], macs: undefined };
    const userMeta = { ...meta, nets: ["user", "default"], macs: [] };
    expect(specDiff({ ...user, userNetOutbound: true }, { ...userMeta, user_net_outbound: true })).toBe("");
    expect(specDiff({ ...user, userNetOutbound: true }, userMeta)).toBe("user_net_outbound: has false, asked true");
    expect(specDiff(user, { ...userMeta, user_net_outbound: true })).toBe("user_net_outbound: has true, asked false");
  });

  it("reads metadata written before ISOs and MACs as neither, and refuses domains it did not create", () => {
    const old = { ...meta, image: "debian-test", iso: undefined, macs: undefined };
    expect(specDiff({ ...spec, image: "debian-test", iso: undefined, macs: undefined }, old)).toBe("");
    expect(specDiff(spec, null)).toBe("not created by svc-vm");
  });
});
