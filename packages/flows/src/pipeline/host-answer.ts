import { DEFAULT_MAX_PROBE_AGE_MS, describeFit, describeRoom, hostRoom, type FitQuestion } from "@svc/hosts";
import type { Logger } from "@svc/logger";
import type { PlanHosts } from "./placement-preview";

/**
 * The answer to a question about the room on the hosts, from the inventory's last probes (the
 * cached read): each host's room, or, for a VM size (`fit`), where placement would put it; null
 * without an inventory or when it cannot be read (the reply then points to the chat and svc-hosts).
 */
export async function hostRoomAnswer(hosts: PlanHosts | undefined, logger: Logger, fit?: FitQuestion): Promise<string | null> {
  if (!hosts) return null;
  try {
    const now = Date.now();
    const maxProbeAgeMs = hosts.maxProbeAgeMs ?? DEFAULT_MAX_PROBE_AGE_MS;
    const records = await hosts.list();
    if (fit) return describeFit(records, fit, { weigher: hosts.weigher ?? "spread", maxProbeAgeMs, now }).answer;
    return describeRoom(records.map((r) => hostRoom(r, maxProbeAgeMs, now)));
  } catch (e) {
    logger.warn({ err: String(e) }, "host inventory unavailable for a host question");
    return null;
  }
}
