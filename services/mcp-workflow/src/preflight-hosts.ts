import type { EngineApi } from "@svc/engine";
import { placementOver, placementRequestOf, type HostRecord, type Weigher } from "@svc/hosts";
import { z } from "zod";
import { checkParams, type PreflightCheck } from "./preflight";
import { probeHolders, targetOf } from "./vm-hosts";

/** One host's verdict for the VM: would it fit, why not, the numbers it was judged on. */
export const HostVerdict = z.object({
  host: z.string(),
  fits: z.boolean(),
  reasons: z.array(z.string()),
  numbers: z.object({ memory_free_mb: z.number(), disk_free_gb: z.number(), vcpus_free: z.number() }).nullable(),
  weight: z.number().optional(),
  provider: z.string().describe("libvirt, or the cloud whose account a VM there bills"),
  region: z.string().nullable(),
  up: z.boolean(),
});
export type HostVerdict = z.infer<typeof HostVerdict>;

export interface HostsPreflight {
  checks: PreflightCheck[];
  conf: Record<string, unknown>;
  /** The host placement would choose (the pinned one when it fits), or null when none fits. */
  host: string | null;
  hosts: HostVerdict[];
}

/**
 * Would create_vm succeed on several hosts? Without touching any host: the params against the VM
 * DAG, the name free on every host (their last probes), and placement over the hosts' last probes
 * with each host's verdict, as the worker would place the VM.
 */
export async function preflightOnHosts(
  api: EngineApi,
  dagId: string,
  conf: Record<string, unknown>,
  settings: Record<string, string>,
  records: readonly HostRecord[],
  o: { weigher: Weigher; maxProbeAgeMs: number },
): Promise<HostsPreflight> {
  const { check, resolved } = await checkParams(api, dagId, conf, settings);
  const checks: PreflightCheck[] = [check];
  const name = typeof resolved.vm_name === "string" ? resolved.vm_name : "";
  if (name) {
    const holders = probeHolders(records, name).map((r) => r.name);
    checks.push({
      check: "name_free",
      ok: holders.length === 0,
      detail: holders.length ? `a VM named '${name}' already exists on host ${holders.map((h) => `'${h}'`).join(", ")} (last probe)` : `no VM named '${name}' on any host`,
    });
  }
  const request = placementRequestOf(resolved);
  const p = placementOver(records, request, o.weigher, o.maxProbeAgeMs);
  const why = p.verdicts.map((v) => `${v.host}: ${v.fits ? "fits" : v.reasons.join(", ")}`).join("; ");
  checks.push(
    p.host
      ? { check: "placement", ok: true, detail: request.host ? `pinned host '${p.host}' fits` : `would be placed on '${p.host}' (${p.weigher}); ${why}` }
      : { check: "placement", ok: false, detail: `no host fits: ${why}` },
  );
  const hosts = p.verdicts.map((v) => ({
    host: v.host,
    fits: v.fits,
    reasons: v.reasons,
    numbers: v.numbers,
    ...(v.weight !== undefined ? { weight: v.weight } : {}),
    ...targetOf(
      records.find((r) => r.name === v.host),
      o.maxProbeAgeMs,
    ),
  }));
  return { checks, conf: resolved, host: p.host, hosts };
}
