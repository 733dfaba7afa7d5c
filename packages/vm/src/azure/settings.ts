import type { Agent } from "node:https";
import { ClientSecretCredential } from "@azure/identity";
import { VmInputError } from "../errors";

/** A client secret of an Entra ID app, as the secrets file holds it. */
export interface AzureClientSecret {
  tenantId: string;
  clientId: string;
  clientSecret: string;
}

/** What an Azure driver needs: the host's settings and, apart, its credentials. */
export interface AzureDriverSettings {
  subscription: string;
  location: string;
  resourceGroup: string;
  /** Virtual network and subnet the NICs join (default `svc-vnet`/`default`, made on first use). */
  vnet?: string;
  subnet?: string;
  /** Resource Manager URL (default https://management.azure.com). */
  endpoint?: string;
  /** Entra ID authority (default @azure/identity's, login.microsoftonline.com); the caller reads AZURE_AUTHORITY_HOST. */
  authorityHost?: string;
  credentials: AzureClientSecret;
  /** An https agent for every call (a private CA); NODE_EXTRA_CA_CERTS does the same for a process. */
  agent?: Agent;
  sshUser?: string;
  timeoutMs?: number;
  pollMs?: number;
}

/** The public clouds' authorities: instance discovery is left on only for these. */
const PUBLIC_AUTHORITIES = ["login.microsoftonline.com", "login.microsoftonline.us", "login.chinacloudapi.cn", "login.partner.microsoftonline.cn"];

/** The client secret from the secrets file's `vault_azure_*` keys; a missing one is named, never a value. */
export function azureCredentialsFromSecrets(secrets: Readonly<Record<string, unknown>>): AzureClientSecret {
  const get = (k: string) => (typeof secrets[k] === "string" && secrets[k] !== "" ? secrets[k] : undefined);
  const keys = ["vault_azure_tenant_id", "vault_azure_client_id", "vault_azure_client_secret"] as const;
  const missing = keys.filter((k) => !get(k));
  if (missing.length) throw new VmInputError(`the secrets file has no ${missing.join(", ")} (an Entra ID app's tenant, client id and client secret)`);
  return { tenantId: get(keys[0])!, clientId: get(keys[1])!, clientSecret: get(keys[2])! };
}

/** The credential: a client secret against the authority; a non-public authority turns instance discovery off. */
export function azureCredential(s: AzureDriverSettings): ClientSecretCredential {
  const host = s.authorityHost ? new URL(s.authorityHost).hostname : undefined;
  return new ClientSecretCredential(s.credentials.tenantId, s.credentials.clientId, s.credentials.clientSecret, {
    ...(s.authorityHost ? { authorityHost: s.authorityHost } : {}),
    ...(host && !PUBLIC_AUTHORITIES.includes(host) ? { disableInstanceDiscovery: true } : {}),
    ...(s.agent ? { agent: s.agent } : {}),
  });
}

/** OS names (as on libvirt) → the publishers' marketplace images (newest version). */
export const AZURE_IMAGES: Record<string, { publisher: string; offer: string; sku: string }> = {
  debian12: { publisher: "Debian", offer: "debian-12", sku: "12-gen2" },
  debian13: { publisher: "Debian", offer: "debian-13", sku: "13-gen2" },
  ubuntu2204: { publisher: "Canonical", offer: "0001-com-ubuntu-server-jammy", sku: "22_04-lts-gen2" },
  ubuntu2404: { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "server" },
  alma9: { publisher: "almalinux", offer: "almalinux-x86_64", sku: "9-gen2" },
};
