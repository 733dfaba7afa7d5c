import { isHostRoomQuestion } from "@svc/assistant";
import { DEFAULT_MAX_PROBE_AGE_MS, describeRoom, hostRoom, type HostList, type HostRoom } from "@svc/hosts";

/** A chat answer from the host inventory: the numbers are the last probes', never a model's. */
export interface InventoryAnswer {
  answer: string;
  sources: { title: string; path: string; score: number }[];
  mode: "inventory";
  hosts: HostRoom[];
}

/**
 * "How much room is left on each host?" and its paraphrases, answered from the inventory's last
 * probes (deterministic, model or not); null for any other message (the docs answer it).
 */
export async function answerFromInventory(message: string, hosts: HostList | undefined, maxProbeAgeMs = DEFAULT_MAX_PROBE_AGE_MS): Promise<InventoryAnswer | null> {
  if (!hosts || !isHostRoomQuestion(message)) return null;
  const now = Date.now();
  const rooms = (await hosts.list()).map((r) => hostRoom(r, maxProbeAgeMs, now));
  return {
    answer: describeRoom(rooms),
    sources: rooms.map((h) => ({ title: `host ${h.host} (inventory, ${h.measured_at ? `probe of ${h.measured_at}` : "no probe"})`, path: `hosts/${h.host}`, score: 1 })),
    mode: "inventory",
    hosts: rooms,
  };
}
