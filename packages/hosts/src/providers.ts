import { isIP } from "node:net";
import { z } from "zod";
import type { HostProvider } from "@svc/db";
import { isCidr } from "@svc/vm/plan";

/** The providers svc makes VMs on. */
export const PROVIDERS: readonly HostProvider[] = ["libvirt", "aws", "hetzner", "gcp", "azure"];
export type CloudProvider = Exclude<HostProvider, "libvirt">;

/** Providers that are gone, with why (refused by name instead of pretending). */
const RETIRED: Record<string, string> = { equinix: "Equinix Metal was shut down on 2026-06-30" };

/** The provider named, or a clear error naming those svc supports. */
export function providerOf(name: string): HostProvider | { error: string } {
  if ((PROVIDERS as readonly string[]).includes(name)) return name as HostProvider;
  const supported = `svc supports the providers ${PROVIDERS.join(", ")}`;
  const gone = RETIRED[name.toLowerCase()];
  return { error: gone ? `${gone}: ${supported}` : `unknown provider '${name}': ${supported}` };
}

/** An API endpoint: http(s), a host, an optional port and path; no credentials, query or fragment. */
const endpoint = z
  .string()
  .max(512)
  .refine((s) => {
    try {
      const u = new URL(s);
      return /^https?:$/.test(u.protocol) && u.hostname !== "" && !u.username && !u.password && !u.search && !u.hash && !/\s/.test(s);
    } catch {
      return false;
    }
  }, "an http(s) URL without credentials, query or fragment, such as https://ec2.eu-west-1.amazonaws.com");

/** `user@host[:port]`: the SSH host a cloud host's instances are reached through (ssh ProxyJump). */
const bastion = z
  .string()
  .max(300)
  .regex(/^[a-z_][a-z0-9_-]{0,31}@([A-Za-z0-9]([A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?$/, "user@host[:port], the SSH host the instances are reached through")
  .refine((s) => {
    const port = /:(\d{1,5})$/.exec(s.replace(/\[[^\]]*\]/, ""))?.[1];
    return port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
  }, "the bastion's port is 1 to 65535");
/** The login svc uses on the instances (cloud-init makes it; `root` on images that take the provider's keys for root). */
const sshUser = z.string().regex(/^[a-z_][a-z0-9_-]{0,31}$/, "a login name such as svc or root");
/**
 * The CIDRs svc's SSH reaches the instances from (comma-separated): a product VM's firewall opens
 * 22 to these only. Default: the bastion's address when it is an IP; without either, a product
 * VM on the host is refused (svc cannot tell the address it connects from).
 */
const sshFrom = z
  .string()
  .max(600)
  .refine((s) => s.split(",").every((c) => isCidr(c.trim())), "CIDRs separated by commas, such as 198.51.100.7/32");
/** How instances are reached, for both providers: directly on their address, or through a bastion. */
const reach = { bastion: bastion.optional(), ssh_user: sshUser.optional(), ssh_from: sshFrom.optional() };

/** A bastion setting as its parts (the port defaults to 22). */
export function parseBastion(s: string): { user: string; address: string; port: number } {
  const at = s.indexOf("@");
  const rest = s.slice(at + 1);
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(rest)!;
  return { user: s.slice(0, at), address: m[1]!.replace(/^\[|\]$/g, ""), port: m[2] ? Number(m[2]) : 22 };
}

/** Where svc's SSH reaches a cloud host's instances from: its ssh_from setting, else its bastion's address when that is an IP; else unknown ([]). */
export function sshFromOf(settings: Record<string, string | undefined>): string[] {
  if (settings.ssh_from) return settings.ssh_from.split(",").map((c) => c.trim());
  const address = settings.bastion ? parseBastion(settings.bastion).address : undefined;
  const v = address ? isIP(address) : 0;
  return v ? [`${address}/${v === 4 ? 32 : 128}`] : [];
}

const awsRegion = z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, "an AWS region such as eu-west-1");

/** An AWS host's settings (credentials are never here: only where they come from). */
export const awsSettingsSchema = z
  .object({
    region: awsRegion,
    zone: z
      .string()
      .regex(/^[a-z]{2}(-[a-z]+)+-\d{1,2}[a-z]$|^[a-z]{2}(-[a-z0-9]+)+-\d[a-z]$/, "an availability zone such as eu-west-1a")
      .optional(),
    subnet: z
      .string()
      .regex(/^subnet-[0-9a-f]{8,17}$/, "a subnet id such as subnet-0123456789abcdef0")
      .optional(),
    security_group: z
      .string()
      .regex(/^sg-[0-9a-f]{8,17}$/, "a security group id such as sg-0123456789abcdef0")
      .optional(),
    endpoint: endpoint.optional(),
    credentials: z.enum(["secrets-file", "default-chain"], { message: "secrets-file (the default) or default-chain" }).default("secrets-file"),
    ...reach,
  })
  .strict()
  .refine((s) => !s.zone || s.zone.startsWith(s.region), { message: "the zone must be in the region", path: ["zone"] });

/** A Hetzner Cloud host's settings (the token comes from the secrets file, never from here). */
export const hetznerSettingsSchema = z
  .object({
    location: z.string().regex(/^[a-z]{3}\d{0,2}$/, "a Hetzner location such as fsn1, nbg1, hel1, ash, hil, sin"),
    network: z
      .string()
      .regex(/^[A-Za-z0-9]([A-Za-z0-9._-]{0,62})$/, "a network name or id")
      .optional(),
    endpoint: endpoint.optional(),
    ...reach,
  })
  .strict();

/** A Compute Engine zone of a project (the key comes from the secrets file, or `adc`: application default credentials). */
export const gcpSettingsSchema = z
  .object({
    project: z.string().regex(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/, "a GCP project id such as my-project-123"),
    zone: z.string().regex(/^[a-z]+-[a-z]+\d{1,2}-[a-z]$/, "a GCP zone such as europe-west1-b"),
    network: z
      .string()
      .regex(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/, "a VPC network name such as default")
      .optional(),
    subnet: z
      .string()
      .regex(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/, "a subnetwork name")
      .optional(),
    endpoint: endpoint.optional(),
    credentials: z.enum(["secrets-file", "adc"], { message: "secrets-file (the default: vault_gcp_service_account_json) or adc" }).default("secrets-file"),
    ssh_from: sshFrom.optional(),
  })
  .strict();

const azureName = (what: string) => z.string().regex(/^[A-Za-z0-9]([A-Za-z0-9._-]{0,78}[A-Za-z0-9_])?$/, what);

/** An Azure resource group in a location (the client secret comes from the secrets file, never from here). */
export const azureSettingsSchema = z
  .object({
    subscription: z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, "a subscription id (a GUID)"),
    location: z.string().regex(/^[a-z]+[a-z0-9]*$/, "an Azure location such as westeurope"),
    resource_group: z.string().regex(/^[-\w.()]{1,89}[-\w()]$/, "a resource group name"),
    vnet: azureName("a virtual network name").optional(),
    subnet: azureName("a subnet name").optional(),
    endpoint: endpoint.optional(),
    authority_host: endpoint.optional(),
    ssh_from: sshFrom.optional(),
  })
  .strict()
  .refine((s) => !s.subnet || s.vnet, { message: "a subnet needs its --vnet", path: ["subnet"] })
  .refine((s) => !s.authority_host || s.authority_host.startsWith("https://"), { message: "Entra ID is reached over https only", path: ["authority_host"] });

export type AwsSettings = z.output<typeof awsSettingsSchema>;
export type HetznerSettings = z.output<typeof hetznerSettingsSchema>;

/** The API a cloud host talks to (its `address` and `port` in the inventory). */
const PUBLIC_API: Record<CloudProvider, (s: { region?: string }) => string> = {
  aws: (s) => `https://ec2.${s.region}.amazonaws.com`,
  hetzner: () => "https://api.hetzner.cloud/v1",
  gcp: () => "https://compute.googleapis.com",
  azure: () => "https://management.azure.com",
};

export function apiAddress(provider: CloudProvider, s: { region?: string; endpoint?: string }): { address: string; port: number } {
  const url = new URL(s.endpoint ?? PUBLIC_API[provider](s));
  return { address: url.hostname.replace(/^\[|\]$/g, ""), port: url.port ? Number(url.port) : url.protocol === "http:" ? 80 : 443 };
}

/** Validate a cloud provider's settings; the problems as one line each. */
export function parseProviderSettings(provider: CloudProvider, input: Record<string, unknown>): { settings: Record<string, string> } | { problems: string[] } {
  const schema = { aws: awsSettingsSchema, hetzner: hetznerSettingsSchema, gcp: gcpSettingsSchema, azure: azureSettingsSchema }[provider];
  const r = schema.safeParse(input);
  if (r.success) return { settings: r.data };
  return { problems: r.error.issues.map((i) => `${i.path.join(".") || provider}: ${i.message}`) };
}

/** A cloud host's region or location (AWS region, Hetzner location, a zone where that is all it names); undefined for libvirt. */
export function hostRegion(h: { provider: HostProvider; provider_settings: Record<string, string> }): string | undefined {
  if (h.provider === "libvirt") return undefined;
  const s = h.provider_settings;
  return s.region ?? s.location ?? s.zone;
}
