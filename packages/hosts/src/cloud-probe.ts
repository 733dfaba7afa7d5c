import { AwsDriver, type AwsCredentials } from "@svc/vm";
import type { CloudProbeResult } from "./service";
import type { HostRecord } from "./types";

/** Where a cloud probe gets the credentials a host's `secrets-file` mode names (the secrets file's keys). */
export interface CloudCredentialSources {
  /** `vault_aws_*` of the secrets file; absent: such hosts are down saying the file is not read here. */
  awsSecrets?: () => Promise<AwsCredentials> | AwsCredentials;
}

const NOT_READ = "its credentials come from SVC_SECRETS_FILE (vault_aws_*), which this process does not read yet; give the host --credentials default-chain";

/** Who a cloud host's credentials are: AWS sts:GetCallerIdentity (account, ARN); the provider's error marks it down. */
export function createCloudProbe(src: CloudCredentialSources = {}): (h: HostRecord) => Promise<CloudProbeResult> {
  return async (h) => {
    const s = h.provider_settings;
    if (h.provider !== "aws") return { up: false, error: "its token comes from SVC_SECRETS_FILE (vault_hcloud_token), which this process does not read yet" };
    if (s.credentials !== "default-chain" && !src.awsSecrets) return { up: false, error: NOT_READ };
    try {
      const credentials = s.credentials === "default-chain" ? "default-chain" : await src.awsSecrets!();
      const driver = new AwsDriver({ region: s.region!, credentials, ...(s.endpoint ? { endpoint: s.endpoint } : {}) });
      return { up: true, identity: await driver.identity() };
    } catch (e) {
      return { up: false, error: (e as Error).message };
    }
  };
}
