// Each provider's driver (and its SDK) is loaded when a host of that provider is first used, not
// with @svc/vm: the Google, Azure and AWS SDKs take seconds of CPU to load, and every process
// that reads the inventory or runs an operator would pay for all four.
import type * as Aws from "../aws/driver";
import type * as AwsSettings from "../aws/settings";
import type * as Azure from "../azure/driver";
import type * as AzureSettings from "../azure/settings";
import type { CloudPlanRequest, CloudVmPlan } from "../cloud-plan";
import { VmInputError } from "../errors";
import type * as Gcp from "../gcp/driver";
import type * as GcpSettings from "../gcp/settings";
import type * as Hetzner from "../hetzner/driver";
import type { HourlyPrice, VmDriver } from "../types";
import type { Secrets } from "./secrets-file";

/** An inventory host as the factory reads it (`hypervisor_host` row: name, provider, provider_settings). */
export interface CloudHost {
  name: string;
  provider: string;
  provider_settings: Readonly<Record<string, unknown>>;
}

/** The secrets file's keys, or a lazy source of them (read only when the host takes its credentials from the file). */
export type CloudSecrets = Secrets | (() => Promise<Secrets> | Secrets);

/** A cloud VM driver: the libvirt port, plus who its credentials are. */
export interface CloudVmDriver extends VmDriver {
  readonly name: "aws" | "hetzner" | "gcp" | "azure";
  /** Who the credentials are, as the provider says (AWS account and ARN; Hetzner: what the token's project holds). */
  identity(): Promise<Record<string, string>>;
  /** What a VM would be here (size, image, hourly price where the API gives one), creating nothing; a driver without it: the plan says so. */
  plan?(want: CloudPlanRequest): Promise<CloudVmPlan>;
  /** What an instance of `size` costs per hour here, where the API gives it (Hetzner); null where it does not (AWS EC2). */
  hourlyPrice(size: string): Promise<HourlyPrice | null>;
}

/** What a caller may tune; the rest comes from the host's settings and the secrets. */
export interface CloudDriverOptions {
  /** Bound of every waiter (default: the driver's, 10 minutes). */
  timeoutMs?: number;
  pollMs?: number;
  /** The login cloud-init makes, with the key (default `svc`). */
  sshUser?: string;
  /** The Entra ID authority of Azure hosts that name none (config's AZURE_AUTHORITY_HOST). */
  azureAuthorityHost?: string;
}

/** The providers cloudDriverFor knows. */
export const CLOUD_PROVIDERS = ["aws", "hetzner", "gcp", "azure"] as const;

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

async function secretsOf(s: CloudSecrets): Promise<Secrets> {
  return typeof s === "function" ? await s() : s;
}

/**
 * The VM driver of a cloud inventory host: AWS (keys from the secrets file's `vault_aws_*`, or the SDK's
 * default chain when the host says `credentials: default-chain`), Hetzner (`vault_hcloud_token`), GCP
 * (`vault_gcp_service_account_json`, or application default credentials for `credentials: adc`) or Azure
 * (`vault_azure_tenant_id`, `_client_id`, `_client_secret`; the authority from the host, else the option). A host
 * that is not a cloud host, or lacks a setting or a key, is a VmInputError naming what is missing (never a value).
 */
export async function cloudDriverFor(host: CloudHost, secrets: CloudSecrets, opts: CloudDriverOptions = {}): Promise<CloudVmDriver> {
  const s = host.provider_settings;
  const tune = { ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}), ...(opts.pollMs ? { pollMs: opts.pollMs } : {}), ...(opts.sshUser ? { sshUser: opts.sshUser } : {}) };
  const endpoint = str(s.endpoint);
  switch (host.provider) {
    case "aws": {
      const region = str(s.region);
      if (!region) throw new VmInputError(`host '${host.name}' (aws) has no region in its settings`);
      /* eslint-disable @typescript-eslint/no-require-imports -- lazy synchronous loads, typed by the imports above */
      const { AwsDriver } = require("../aws/driver") as typeof Aws;
      const { awsCredentialsFromSecrets } = require("../aws/settings") as typeof AwsSettings;
      /* eslint-enable @typescript-eslint/no-require-imports */
      const credentials = s.credentials === "default-chain" ? ("default-chain" as const) : awsCredentialsFromSecrets(await secretsOf(secrets));
      return new AwsDriver({
        region,
        credentials,
        ...(str(s.zone) ? { zone: str(s.zone)! } : {}),
        ...(str(s.subnet) ? { subnet: str(s.subnet)! } : {}),
        ...(str(s.security_group) ? { securityGroup: str(s.security_group)! } : {}),
        ...(endpoint ? { endpoint } : {}),
        ...tune,
      });
    }
    case "hetzner": {
      const location = str(s.location);
      if (!location) throw new VmInputError(`host '${host.name}' (hetzner) has no location in its settings`);
      const token = str((await secretsOf(secrets)).vault_hcloud_token);
      if (!token) throw new VmInputError(`the secrets file has no vault_hcloud_token (host '${host.name}' is a Hetzner Cloud host)`);
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy synchronous load, typed by the import above
      const { HetznerDriver } = require("../hetzner/driver") as typeof Hetzner;
      return new HetznerDriver({ location, token, ...(str(s.network) ? { network: str(s.network)! } : {}), ...(endpoint ? { endpoint } : {}), ...tune });
    }
    case "gcp": {
      const project = str(s.project);
      const zone = str(s.zone);
      if (!project || !zone) throw new VmInputError(`host '${host.name}' (gcp) has no ${project ? "zone" : "project"} in its settings`);
      /* eslint-disable @typescript-eslint/no-require-imports -- lazy synchronous loads, typed by the imports above */
      const { GcpDriver } = require("../gcp/driver") as typeof Gcp;
      const { gcpKeyFromSecrets } = require("../gcp/settings") as typeof GcpSettings;
      /* eslint-enable @typescript-eslint/no-require-imports */
      const credentials = s.credentials === "adc" ? ("adc" as const) : gcpKeyFromSecrets(await secretsOf(secrets));
      return new GcpDriver({
        project,
        zone,
        credentials,
        ...(str(s.network) ? { network: str(s.network)! } : {}),
        ...(str(s.subnet) ? { subnet: str(s.subnet)! } : {}),
        ...(endpoint ? { endpoint } : {}),
        ...tune,
      });
    }
    case "azure": {
      const [subscription, location, resourceGroup] = [str(s.subscription), str(s.location), str(s.resource_group)];
      if (!subscription || !location || !resourceGroup) throw new VmInputError(`host '${host.name}' (azure) needs subscription, location and resource_group in its settings`);
      const authorityHost = str(s.authority_host) ?? opts.azureAuthorityHost;
      /* eslint-disable @typescript-eslint/no-require-imports -- lazy synchronous loads, typed by the imports above */
      const { AzureDriver } = require("../azure/driver") as typeof Azure;
      const { azureCredentialsFromSecrets } = require("../azure/settings") as typeof AzureSettings;
      /* eslint-enable @typescript-eslint/no-require-imports */
      return new AzureDriver({
        subscription,
        location,
        resourceGroup,
        credentials: azureCredentialsFromSecrets(await secretsOf(secrets)),
        ...(str(s.vnet) ? { vnet: str(s.vnet)! } : {}),
        ...(str(s.subnet) ? { subnet: str(s.subnet)! } : {}),
        ...(endpoint ? { endpoint } : {}),
        ...(authorityHost ? { authorityHost } : {}),
        ...tune,
      });
    }
    default:
      throw new VmInputError(`host '${host.name}' has provider '${host.provider}': not a cloud host (cloud providers: ${CLOUD_PROVIDERS.join(", ")})`);
  }
}
