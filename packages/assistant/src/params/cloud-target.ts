// "on aws in eu-west-1", "on hetzner in fsn1", "on hz-test": where a request puts its VMs besides
// a host it names with the word "host". Read from the raw request, as typed; the caller matches it
// against the inventory (a provider or region no host has is asked again, never dropped).

/** Where a request asks its VMs to go: a provider, a region or location, and words that may name an inventory host. */
export interface CloudTarget {
  /** aws, hetzner, gcp, azure or equinix, as the request names it (aliases folded: ec2 is aws, hcloud is hetzner). */
  provider?: string;
  /** An AWS region (eu-west-1) or a Hetzner location (fsn1), as typed. */
  region?: string;
  /** Names after on/to/at/in that could be a host of the inventory ("on hz-test"); only an inventory name counts. */
  hosts: string[];
}

const PROVIDERS: readonly [string, string][] = [
  ["amazon web services", "aws"],
  ["amazon", "aws"],
  ["aws", "aws"],
  ["ec2", "aws"],
  ["hetzner cloud", "hetzner"],
  ["hetzner", "hetzner"],
  ["hcloud", "hetzner"],
  ["google cloud", "gcp"],
  ["gcp", "gcp"],
  ["gce", "gcp"],
  ["azure", "azure"],
  ["equinix metal", "equinix"],
  ["equinix", "equinix"],
];
const WORDS = PROVIDERS.map(([w]) => w.replace(/ /g, "\\s+")).join("|");
const PREP = "(?:on|in|at|to|into|onto|using|via|through)";
// "on aws", "in the hetzner cloud", "an ec2 instance", "aws vm": the provider word as a target, never inside a name (aws-test).
const PROVIDER = new RegExp(
  `(?:(?:^|\\s)${PREP}\\s+(?:the\\s+)?(${WORDS})(?![\\w-]))|(?:(?:^|[\\s(])(${WORDS})\\s+(?:vm|vms|instance|instances|server|servers|machine|box|cloud|account|region))(?![\\w-])`,
  "i",
);
const AWS_REGION = "[a-z]{2}(?:-[a-z]+)+-\\d{1,2}";
const HETZNER_LOCATION = "fsn1|nbg1|hel1|ash|hil|sin";
const REGION = new RegExp(`(?:^|\\s)(?:${PREP}\\s+(?:the\\s+)?(?:region\\s+|location\\s+)?|region\\s+|location\\s+)(${AWS_REGION}|${HETZNER_LOCATION})(?![\\w-])`, "i");
/** One lower-case DNS label (a host of the inventory). */
const HOST_WORD = new RegExp(`(?:^|\\s)(?:on|to|onto|at|in)\\s+(?:the\\s+)?([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?=$|[\\s,;.!?])`, "g");

/** Words after "on" that are not a host's name ("on host lab2", "on the kvm host"). */
const NOT_A_HOST = new Set([
  "host",
  "hypervisor",
  "kvm",
  "region",
  "location",
  "cloud",
  "a",
  "an",
  "it",
  "them",
  "top",
  "demand",
  "behalf",
  "prem",
  "premise",
  "premises",
  ...PROVIDERS.map(([w]) => w),
]);

/** Where the request puts its VMs (provider, region, host words), or undefined when it says nothing of it. */
export function readCloudTarget(raw: string): CloudTarget | undefined {
  const p = PROVIDER.exec(raw);
  const word = (p?.[1] ?? p?.[2])?.toLowerCase().replace(/\s+/g, " ");
  const provider = word ? PROVIDERS.find(([w]) => w === word)?.[1] : undefined;
  const region = REGION.exec(raw)?.[1];
  const hosts = [...raw.matchAll(HOST_WORD)].map((m) => m[1]!).filter((h) => h !== word && h !== region && !NOT_A_HOST.has(h));
  if (!provider && !region && hosts.length === 0) return undefined;
  return { ...(provider ? { provider } : {}), ...(region ? { region } : {}), hosts };
}

/** A provider svc refuses by name, with why (Equinix Metal is gone); undefined for the others. */
export function retiredProviderMessage(t: CloudTarget | undefined): string | undefined {
  if (t?.provider !== "equinix") return undefined;
  return "Equinix Metal was shut down on 2026-06-30, so svc creates nothing there; it makes VMs on libvirt hosts, AWS EC2 and Hetzner Cloud (svc-hosts list shows the hosts of the inventory). Nothing was started.";
}
