// What reaches a host over SSH for the inventory: the probe and the first contact. The host
// service loads this module on the first probe, so reading the inventory loads no SSH code.
import type { HostProvider } from "@svc/db";
import { hostExecutor, type HostTarget } from "./connect";
import { probeHost, type ProbeTarget } from "./probe";
import type { HostRecord, ProbeResult } from "./types";

export { firstContactKey } from "./connect";

/** What a probe needs: where the host is, its pinned key, its libvirt URI and directories. */
export type ProbeInput = HostTarget & ProbeTarget & Pick<HostRecord, "host_key"> & { provider?: HostProvider };

/** Probe a host with its pinned key over its own executor (a cloud host is not reached over SSH). */
export async function probeRecord(h: ProbeInput): Promise<ProbeResult> {
  if (h.provider && h.provider !== "libvirt") return { up: false, error: `a ${h.provider} host is probed through its provider's API, not over SSH` };
  let ex;
  try {
    ex = hostExecutor(h);
  } catch (e) {
    return { up: false, error: (e as Error).message };
  }
  try {
    return await probeHost(ex, h);
  } finally {
    await ex.close();
  }
}
