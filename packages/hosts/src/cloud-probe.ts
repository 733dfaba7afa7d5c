import { cloudDriverFor, type CloudSecrets } from "@svc/vm";
import type { CloudProbeResult } from "./service";
import type { HostRecord } from "./types";

/**
 * Who a cloud host's credentials are, through the host's driver (`cloudDriverFor`): the AWS account and ARN
 * (sts:GetCallerIdentity), what a Hetzner token's project holds (its servers and SSH keys). A missing key or
 * the provider's refusal marks the host down with that message.
 */
export function createCloudProbe(secrets: CloudSecrets): (h: HostRecord) => Promise<CloudProbeResult> {
  return async (h) => {
    try {
      const driver = await cloudDriverFor(h, secrets);
      return { up: true, identity: await driver.identity() };
    } catch (e) {
      return { up: false, error: (e as Error).message };
    }
  };
}
