import { DEFAULT_MAX_PROBE_AGE_MS, describeRoom, hostRoom } from "@svc/hosts";
import type { Logger } from "@svc/logger";
import type { PlanHosts } from "./placement-preview";

/**
 * The answer to a question about the room on the hosts, from the inventory's last probes (the
 * cached read), or null without an inventory or when it cannot be read (the reply then points to
 * the chat and svc-hosts).
 */
export async function hostRoomAnswer(hosts: PlanHosts | undefined, logger: Logger): Promise<string | null> {
  if (!hosts) return null;
  try {
    const now = Date.now();
    return describeRoom((await hosts.list()).map((r) => hostRoom(r, hosts.maxProbeAgeMs ?? DEFAULT_MAX_PROBE_AGE_MS, now)));
  } catch (e) {
    logger.warn({ err: String(e) }, "host inventory unavailable for a host question");
    return null;
  }
}
