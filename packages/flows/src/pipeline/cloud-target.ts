import { readCloudTarget } from "@svc/assistant";
import { hostRegion, type HostRecord } from "@svc/hosts";

/** What a request's target (provider, region, a host's name) makes of the plan. */
export type TargetOutcome =
  /** The host of the inventory it names: the plan pins it (the `host` param). */
  | { host: string; note: string }
  /** It names a provider or region no host has: asked again, naming the cloud hosts there are. */
  | { ask: { field: "host"; rule: string; question: string; given?: string } }
  /** It cannot be honoured (no inventory, or a workflow without a host param): nothing runs. */
  | { refuse: string };

const describeHost = (r: HostRecord) => `${r.name} (${r.provider}${hostRegion(r) ? ` ${hostRegion(r)}` : ""})`;

/**
 * Match where a request puts its VMs ("on aws in eu-west-1", "on hetzner in fsn1", "on hz-test")
 * against the inventory. A cloud target with no matching host is asked again, never placed on a
 * libvirt host instead. Null: the request names no target, or names its host with "on host X"
 * (or the `host` param), which decides.
 */
export function resolveCloudTarget(intent: string, o: { dagId: string; declaresHost: boolean; host: unknown; records: readonly HostRecord[] | null }): TargetOutcome | null {
  const t = readCloudTarget(intent);
  if (!t || (typeof o.host === "string" && o.host !== "")) return null;
  const named = o.records?.find((r) => t.hosts.includes(r.name));
  if (!named && !t.provider && !t.region) return null;
  if (!o.declaresHost)
    return {
      refuse: `${o.dagId} cannot be put on a chosen host (it has no host param), so it cannot go ${t.provider ? `on ${t.provider}` : `to ${t.region}`}; nothing was started.`,
    };
  if (named) return { host: named.name, note: `on host ${describeHost(named)}, named in the request` };
  if (!o.records)
    return { refuse: "The host inventory cannot be read now, so no cloud host can be matched to the request; nothing was started. Try again, or name the host (on host NAME)." };
  const clouds = o.records.filter((r) => r.provider !== "libvirt");
  const fits = clouds.filter((r) => (!t.provider || r.provider === t.provider) && (!t.region || hostRegion(r) === t.region));
  const what = [t.provider ? `a ${t.provider} host` : "a host", t.region ? `in ${t.region}` : ""].filter(Boolean).join(" ");
  if (fits.length) {
    const [first, ...others] = fits;
    const more = others.length ? `; ${others.map((r) => r.name).join(", ")} also match (name one with "on host NAME")` : "";
    return { host: first!.name, note: `on ${what}: host ${describeHost(first!)}${more}` };
  }
  const there = clouds.length
    ? `the cloud hosts are ${clouds.map(describeHost).join(", ")}`
    : "the inventory has no cloud host (svc-hosts add NAME --provider aws --region REGION, or --provider hetzner --location LOCATION, adds one)";
  return {
    ask: {
      field: "host",
      rule: `no host of the inventory is ${what}: ${there}; nothing goes to another host instead`,
      question: `Which host should it go on? (${clouds.length ? `${clouds.map((r) => r.name).join(", ")}, or ` : ""}another host of svc-hosts list)`,
      given: [t.provider, t.region].filter(Boolean).join(" "),
    },
  };
}
