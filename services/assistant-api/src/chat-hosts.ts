import { readHostQuestion } from "@svc/assistant";
import { DEFAULT_MAX_PROBE_AGE_MS, describeFit, describeRoom, hostRoom, type FitAnswer, type HostList, type HostRoom } from "@svc/hosts";

/** A chat answer from the host inventory: the numbers are the last probes', never a model's. */
export interface InventoryAnswer {
  answer: string;
  sources: { title: string; path: string; score: number }[];
  mode: "inventory";
  hosts: HostRoom[];
  /** For "would a VM of this size fit?": the size asked about and placement's verdict per host. */
  fit?: { size: Record<string, number>; host: FitAnswer["host"]; verdicts: FitAnswer["verdicts"] };
}

/**
 * "How much room is left on each host?" and its paraphrases, answered from the inventory's last
 * probes (deterministic, model or not); "would a 32 GB vm fit anywhere?" by placement over the
 * same probes; null for any other message (the docs answer it).
 */
export async function answerFromInventory(message: string, hosts: HostList | undefined, maxProbeAgeMs = DEFAULT_MAX_PROBE_AGE_MS): Promise<InventoryAnswer | null> {
  const question = hosts ? readHostQuestion(message) : null;
  if (!hosts || !question) return null;
  const now = Date.now();
  const records = await hosts.list();
  const rooms = records.map((r) => hostRoom(r, maxProbeAgeMs, now));
  const fit = question.fit ? describeFit(records, question.fit, { maxProbeAgeMs, now }) : undefined;
  return {
    answer: fit ? fit.answer : describeRoom(rooms),
    ...(fit && question.fit ? { fit: { size: { ...question.fit }, host: fit.host, verdicts: fit.verdicts } } : {}),
    sources: rooms.map((h) => ({ title: `host ${h.host} (inventory, ${h.measured_at ? `probe of ${h.measured_at}` : "no probe"})`, path: `hosts/${h.host}`, score: 1 })),
    mode: "inventory",
    hosts: rooms,
  };
}
