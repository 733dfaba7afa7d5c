import { GoogleAuth, JWT } from "google-auth-library";
import { VmInputError } from "../errors";

/** What a GCP driver needs: the host's settings and, apart, where its credentials come from. */
export interface GcpDriverSettings {
  project: string;
  zone: string;
  /** VPC network name (default `default`). */
  network?: string;
  /** Subnetwork name in the zone's region (default: the network's auto subnet). */
  subnet?: string;
  /** The Compute API's base URL (a test server); its path is ignored: the API's paths start at /compute/v1. */
  endpoint?: string;
  /** A service-account key (the secrets file's `vault_gcp_service_account_json`), or `adc`: application default credentials. */
  credentials: GcpServiceAccountKey | "adc";
  sshUser?: string;
  timeoutMs?: number;
  pollMs?: number;
}

/** The fields of a service-account JSON key svc uses. */
export interface GcpServiceAccountKey {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  project_id?: string;
}

const SCOPE = "https://www.googleapis.com/auth/compute";

/** The key from the secrets file; a missing or malformed one is a clear error naming the key, never its value. */
export function gcpKeyFromSecrets(secrets: Readonly<Record<string, unknown>>): GcpServiceAccountKey {
  const raw = secrets.vault_gcp_service_account_json;
  if (raw === undefined || raw === "") throw new VmInputError("the secrets file has no vault_gcp_service_account_json (or give the host --credentials adc)");
  let k: unknown = raw;
  if (typeof raw === "string") {
    try {
      k = JSON.parse(raw);
    } catch {
      throw new VmInputError("vault_gcp_service_account_json in the secrets file is not JSON (a service-account key file's text)");
    }
  }
  const key = k as Partial<GcpServiceAccountKey> & { type?: string };
  if (typeof key !== "object" || key === null || key.type !== "service_account" || typeof key.client_email !== "string" || typeof key.private_key !== "string")
    throw new VmInputError("vault_gcp_service_account_json is not a service-account key (type service_account, client_email, private_key)");
  return { client_email: key.client_email, private_key: key.private_key, ...(key.private_key_id ? { private_key_id: key.private_key_id } : {}) };
}

/**
 * The auth client of the Compute clients. A key signs its own JWTs (self-signed, `useJWTAccessWithScope`,
 * no user scopes): no token exchange, whose URL google-auth-library hard-codes, so a test server works.
 * `adc` is GoogleAuth's chain (GOOGLE_APPLICATION_CREDENTIALS, gcloud's file, the metadata server).
 */
export function gcpAuth(c: GcpDriverSettings["credentials"]): { authClient: JWT } | { auth: GoogleAuth } {
  // Node's own fetch: gaxios would otherwise import node-fetch dynamically, which a CommonJS VM context refuses.
  const transporterOptions = { fetchImplementation: fetch };
  if (c === "adc") return { auth: new GoogleAuth({ scopes: [SCOPE], clientOptions: { transporterOptions } }) };
  const keyId = c.private_key_id ? { keyId: c.private_key_id } : {};
  const jwt = new JWT({ email: c.client_email, key: c.private_key, ...keyId, transporterOptions });
  jwt.useJWTAccessWithScope = true;
  return { authClient: jwt };
}

/** The REST transport's options: `fallback` (HTTP/JSON), and the endpoint split into host, port and protocol. */
export function gcpTransport(endpoint: string | undefined): Record<string, unknown> {
  if (!endpoint) return { fallback: true };
  const u = new URL(endpoint);
  const protocol = u.protocol.replace(/:$/, "");
  return { fallback: true, apiEndpoint: u.hostname, port: u.port ? Number(u.port) : protocol === "http" ? 80 : 443, protocol };
}
