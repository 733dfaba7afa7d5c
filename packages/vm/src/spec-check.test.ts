import { HOSTILE_STRINGS, NUL_STRINGS } from "@svc/testing";
import { assertIsoPath, assertMac, assertVmSpec } from "./spec-check";
import type { VmSpec } from "./types";

const spec = (over: Partial<VmSpec> = {}): VmSpec => ({ name: "node-0", memoryMb: 512, cpus: 1, disksGb: [10], nets: ["default"], sshKeys: [], ...over });

describe("create request checks", () => {
  it("needs an image or an ISO, and accepts either or both", () => {
    expect(() => assertVmSpec(spec())).toThrow(/give an image .* or an ISO/);
    expect(() => assertVmSpec(spec({ image: "debian-test" }))).not.toThrow();
    expect(() => assertVmSpec(spec({ iso: "/srv/agent.iso" }))).not.toThrow();
    expect(() => assertVmSpec(spec({ image: "debian-test", iso: "/srv/agent.iso" }))).not.toThrow();
  });

  it("refuses a firewall on libvirt and kcli VMs instead of ignoring it", () => {
    expect(() => assertVmSpec(spec({ image: "debian-test", firewall: [{ proto: "tcp", port: 22, from: ["192.0.2.0/24"] }] }))).toThrow(/firewall object is for cloud hosts/);
  });

  it("checks the MACs against the networks", () => {
    expect(() => assertVmSpec(spec({ iso: "/srv/agent.iso", macs: ["52:54:00:0a:1b:2c"] }))).not.toThrow();
    expect(() => assertVmSpec(spec({ iso: "/srv/agent.iso", macs: [] }))).toThrow(/one MAC per network/);
    expect(() => assertVmSpec(spec({ iso: "/srv/agent.iso", macs: ["ff:ff:ff:ff:ff:ff"] }))).toThrow(/multicast/);
  });

  it("rejects every hostile string as an ISO path and as a MAC", () => {
    for (const s of [...HOSTILE_STRINGS, ...NUL_STRINGS]) {
      // eslint-disable-next-line no-control-regex -- the oracle names the control characters a path must not hold
      if (!s.startsWith("/") || /[\x00-\x1f\x7f]|(^|\/)\.\.(\/|$)/.test(s)) expect(() => assertIsoPath(s)).toThrow(/invalid ISO path/);
      expect(() => assertMac(s)).toThrow(/invalid MAC address/);
    }
    expect(() => assertIsoPath(`/${"a".repeat(4096)}`)).toThrow(/invalid ISO path/);
  });
});
