// What a request asks of a host's target (provider, region, labels), and why placement never
// bills a cloud account by surprise: a cloud host is a candidate only when the request asks for it.
import type { HostProvider } from "@svc/db";

/** The part of a placement request that names where a VM goes besides its size. */
export interface TargetAsk {
  host?: string;
  /** The provider asked for (`aws`, `hetzner`, `libvirt`...). */
  provider?: string;
  /** The region or location asked for (`eu-west-1`, `fsn1`). */
  region?: string;
  /** Labels the host must carry, each with this value. */
  labels?: Record<string, string>;
}

/** A host as the target filter sees it. */
export interface TargetHost {
  name: string;
  provider?: HostProvider;
  region?: string;
  labels?: Record<string, string>;
}

export const isCloud = (h: Pick<TargetHost, "provider">) => (h.provider ?? "libvirt") !== "libvirt";

const labelsAsked = (r: TargetAsk) => Object.entries(r.labels ?? {});

/** Whether the request names this cloud host: by name, its provider, its region or a label it carries. */
export function asksFor(h: TargetHost, r: TargetAsk): boolean {
  const labels = labelsAsked(r);
  return (
    r.host === h.name ||
    (r.provider !== undefined && r.provider === h.provider) ||
    (r.region !== undefined && r.region === h.region) ||
    (labels.length > 0 && labels.every(([k, v]) => h.labels?.[k] === v))
  );
}

/** Why this host is not what the request names (empty: it may take the VM as far as the target goes). */
export function targetReasons(h: TargetHost, r: TargetAsk): string[] {
  const provider = h.provider ?? "libvirt";
  const out: string[] = [];
  if (isCloud(h) && !asksFor(h, r)) {
    out.push(`a ${provider} host${h.region ? ` in ${h.region}` : ""}: chosen only when the request names its provider, region, a label it carries, or the host`);
    return out;
  }
  if (r.provider !== undefined && r.provider !== provider) out.push(`provider ${provider}, not ${r.provider}`);
  if (r.region !== undefined && r.region !== h.region) out.push(h.region ? `region ${h.region}, not ${r.region}` : `no region (a ${provider} host), not ${r.region}`);
  for (const [k, v] of labelsAsked(r)) if (h.labels?.[k] !== v) out.push(`no label ${k}=${v}`);
  return out;
}
