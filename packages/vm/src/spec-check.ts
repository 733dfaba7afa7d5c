import { VmInputError } from "./errors";
import { assertForwards } from "./forwards";
import { assertImageName, assertNetName, assertVmName } from "./names";
import type { VmSpec } from "./types";

const MAC = /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/;
// Control characters (NUL, newlines, escapes) have no place in a path handed to qemu.
// eslint-disable-next-line no-control-regex -- control characters are what this matches
const CONTROL = /[\x00-\x1f\x7f]/;

/** Throw unless `mac` is a lower-case unicast MAC address such as 52:54:00:12:34:56. */
export function assertMac(mac: string): string {
  if (typeof mac !== "string" || !MAC.test(mac)) {
    throw new VmInputError(`invalid MAC address ${JSON.stringify(String(mac)).slice(0, 40)}: use six lower-case hex pairs, e.g. 52:54:00:12:34:56`);
  }
  if (parseInt(mac.slice(0, 2), 16) & 1) throw new VmInputError(`MAC address ${mac} is a multicast address (odd first byte); use a unicast one, e.g. 52:54:00:...`);
  return mac;
}

/** Throw unless `path` is an absolute host path with no '..' segment and no control characters. */
export function assertIsoPath(path: string): string {
  const ok = typeof path === "string" && path.length <= 4096 && path.startsWith("/") && !CONTROL.test(path) && !path.split("/").includes("..");
  if (!ok) throw new VmInputError(`invalid ISO path ${JSON.stringify(String(path)).slice(0, 80)}: give an absolute path on the host, without '..'`);
  return path;
}

/** One MAC per network, all valid and distinct. */
export function assertMacsForNets(macs: readonly string[], nets: readonly string[]): void {
  if (macs.length !== nets.length) throw new VmInputError(`macs: give one MAC per network (${nets.length} nets, ${macs.length} macs)`);
  macs.forEach(assertMac);
  if (new Set(macs).size !== macs.length) throw new VmInputError("macs: every network needs its own MAC address");
}

/** Outbound connections are a property of the user-mode NIC: nets must have one. */
export function assertOutbound(nets: readonly string[]): void {
  if (!nets.includes("user")) throw new VmInputError("outbound needs user-mode networking (nets=[user,...]): it lets the guest connect out of that NIC");
}

/** Validate a create request before any hypervisor call: names, boot source, ISO path, MACs, forwards. */
export function assertVmSpec(spec: VmSpec): void {
  assertVmName(spec.name);
  if (spec.firewall) throw new VmInputError("firewall: a VM's own firewall object is for cloud hosts; a libvirt VM's forwarded ports are reached on 127.0.0.1 only");
  if (!spec.image && !spec.iso) throw new VmInputError("give an image (-i IMAGE) or an ISO to boot (-P iso=/path/to.iso)");
  if (spec.image) assertImageName(spec.image);
  if (spec.iso) assertIsoPath(spec.iso);
  spec.nets.forEach(assertNetName);
  if (spec.macs) assertMacsForNets(spec.macs, spec.nets);
  if (spec.forwards) assertForwards(spec.forwards, spec.nets);
  if (spec.userNetOutbound) assertOutbound(spec.nets);
}
