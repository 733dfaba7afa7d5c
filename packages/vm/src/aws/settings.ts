import type { EC2ClientConfig } from "@aws-sdk/client-ec2";
import { VmInputError } from "../errors";

/** Static keys, as the secrets file holds them. */
export interface AwsCredentialIdentity {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** Where an AWS driver's credentials come from: given by the caller (keys or a provider of them), or the SDK's default chain. */
export type AwsCredentials = NonNullable<EC2ClientConfig["credentials"]> | "default-chain";

/** What an AWS driver needs: the host's settings (never credentials in them) and the credentials apart. */
export interface AwsDriverSettings {
  region: string;
  zone?: string;
  subnet?: string;
  securityGroup?: string;
  /** EC2 and STS endpoint (compatible APIs, test servers). */
  endpoint?: string;
  credentials: AwsCredentials;
  /** The login cloud-init makes on every instance, with the key (default `svc`). */
  sshUser?: string;
  /** Bound of every waiter (default 10 minutes); a create's `waitTimeoutMs` replaces it. */
  timeoutMs?: number;
  /** Between two polls of a waiter (default 5 s). */
  pollMs?: number;
  /** OS name → where its images are (default AWS_IMAGES: the distributions' official owners). */
  images?: Record<string, AwsImageSource>;
}

/** The images of an OS: owned by its distribution's account, with a name pattern; the newest is taken. */
export interface AwsImageSource {
  owners: string[];
  name: string;
  architecture?: "x86_64" | "arm64";
}

/**
 * The credentials from the secrets file's keys (`vault_aws_access_key_id`, `vault_aws_secret_access_key`,
 * optional `vault_aws_session_token`); a missing key is a clear error naming it, never its value.
 */
export function awsCredentialsFromSecrets(secrets: Readonly<Record<string, unknown>>): AwsCredentialIdentity {
  const get = (k: string) => (typeof secrets[k] === "string" && secrets[k] !== "" ? secrets[k] : undefined);
  const accessKeyId = get("vault_aws_access_key_id");
  const secretAccessKey = get("vault_aws_secret_access_key");
  const missing = [...(accessKeyId ? [] : ["vault_aws_access_key_id"]), ...(secretAccessKey ? [] : ["vault_aws_secret_access_key"])];
  if (missing.length) throw new VmInputError(`the secrets file has no ${missing.join(" and ")} (or give the host --credentials default-chain)`);
  const sessionToken = get("vault_aws_session_token");
  return { accessKeyId: accessKeyId!, secretAccessKey: secretAccessKey!, ...(sessionToken ? { sessionToken } : {}) };
}
