import { AwsDriver } from "../aws/driver";
import { awsCredentialsFromSecrets } from "../aws/settings";
import { VmInputError } from "../errors";
import { HetznerDriver } from "../hetzner/driver";
import type { VmDriver } from "../types";
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
  readonly name: "aws" | "hetzner";
  /** Who the credentials are, as the provider says (AWS account and ARN; Hetzner: what the token's project holds). */
  identity(): Promise<Record<string, string>>;
}

/** What a caller may tune; the rest comes from the host's settings and the secrets. */
export interface CloudDriverOptions {
  /** Bound of every waiter (default: the driver's, 10 minutes). */
  timeoutMs?: number;
  pollMs?: number;
  /** The login cloud-init makes, with the key (default `svc`). */
  sshUser?: string;
}

/** The providers cloudDriverFor knows (GCP and Azure add a case each). */
export const CLOUD_PROVIDERS = ["aws", "hetzner"] as const;

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

async function secretsOf(s: CloudSecrets): Promise<Secrets> {
  return typeof s === "function" ? await s() : s;
}

/**
 * The VM driver of a cloud inventory host: AWS (keys from the secrets file's `vault_aws_*`, or the SDK's
 * default chain when the host says `credentials: default-chain`) or Hetzner (`vault_hcloud_token`). A host
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
      return new HetznerDriver({ location, token, ...(str(s.network) ? { network: str(s.network)! } : {}), ...(endpoint ? { endpoint } : {}), ...tune });
    }
    default:
      throw new VmInputError(`host '${host.name}' has provider '${host.provider}': not a cloud host (cloud providers: ${CLOUD_PROVIDERS.join(", ")})`);
  }
}
