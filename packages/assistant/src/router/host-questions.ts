import { numberWordsToDigits } from "../params/number-words";
import { readSizes } from "../params/sizes";
import { normalizeText } from "./normalize";

/**
 * Questions about the room left on the hypervisor hosts ("how much room is left on each host?",
 * "which host has the most free memory", "how full is host b", "wie viel Platz ist noch auf den
 * Hosts?"), and where a VM of a given size would fit ("would a 32 GB, 8 vCPU vm fit anywhere?",
 * "which hypervisor should a 2 vcpu / 4 GB vm land on?"). They are answered from the host
 * inventory's last probes, never by a workflow. A request that orders a change ("create a vm on
 * host b with 4 GB") is never one, whatever it says about hosts.
 */

/** The hosts named as such (not "server", which names products too), in the languages the router reads. */
const HOST_NOUN = /\b(hosts?|hypervisors?|kvm|libvirt|hipervisor(es)?|hyperviseurs?|hotes?)\b/;
/** What a capacity question asks about. */
const ROOM_CUE =
  /\b(room|space|capacity|capacities|free|full|fuller|fullest|emptiest|empty|left|available|headroom|usage|utili[sz]ation|load|loaded|busy|busiest|resources|fits?|enough|running out|run out|platz|frei(e|en|er)?|kapazitat|libres?|queda|quedan|espacio|capacidad|recursos|capacite|ressources)\b|\bhow much (memory|ram|disk|cpu|cpus|vcpus|storage)\b|\b(most|least|more|less) (memory|ram|disk|cpu|cpus|vcpus|storage)\b/;
/** Where a VM of a size would go: "fit", "room for", "take", "land on", "squeeze", "where can …". */
const FIT_CUE = /\b(fits?|room for|space for|enough .{0,40}\bfor|take|land|go|squeeze|accommodate|hold|host)\b/;
/** Where the question looks for the VM's place: any host, or the hosts by name. */
const FIT_PLACE = /\b(anywhere|where|which|any)\b/;
/** A request for a change, said as an order (possibly politely). */
const ORDER =
  /^(?:(?:please|ok|okay|now|then|and|so),? )*(?:(?:can|could|would|will) you (?:please )?|i (?:want|need|would like|'d like) (?:you )?to |let'?s |go (?:and )?)?(create|deploy|provision|spin|make|build|install|delete|remove|destroy|tear|launch|start|stop|restart|reboot|set up|setup|add|drain|activate|migrate|move|put|place|run|boot|resize|give me an? |get me an? )/;
/** A change verb anywhere: without a question form around it, the sentence is a request. */
const CHANGE = /\b(create|deploy|provision|spin up|build|install|delete|remove|destroy|launch|decommission)\b/;
/** How a question opens (after "before I ask …:" and the like, the last clause is the question). */
const ASKS =
  /^(how|which|what|where|who|is|are|does|do|has|have|can|could|would|will|should|show|list|tell|give me the|display|report|check|compare|any|wie|welcher?|gibt|hay|cuanta|cuanto|cuantos|cuantas|que|combien|quel|quelle|est-ce)\b/;

/** The VM size a fit question states (the catalogue's units). */
export interface FitSize {
  memory_mb?: number;
  cpus?: number;
  disk_gb?: number;
}

/** What a host question asks: the room on each host, or (with `fit`) where a VM of that size would go. */
export interface HostQuestion {
  fit?: FitSize;
}

const lastClause = (t: string) =>
  t
    .split(/[:;]\s|\.\s/)
    .pop()!
    .trim();

/** The question about the hosts that `text` asks, or null when it asks none (or orders a change). */
export function readHostQuestion(text: string): HostQuestion | null {
  const t = normalizeText(text).replace(/[¿¡]/g, "");
  // Cheap tests first: most requests name no host and ask where nothing goes.
  const host = HOST_NOUN.test(t);
  if (!host && !FIT_PLACE.test(t)) return null;
  const room = host && ROOM_CUE.test(t);
  if (!room && !FIT_CUE.test(t)) return null;
  if (ORDER.test(t)) return null;
  const asks = t.endsWith("?") || ASKS.test(t) || ASKS.test(lastClause(t));
  const sizes = asks ? readSizes(numberWordsToDigits(t.replace(/[?!]/g, " "))) : { ranges: [] };
  const fit = Object.fromEntries((["memory_mb", "cpus", "disk_gb"] as const).flatMap((k) => (sizes[k] !== undefined ? [[k, sizes[k]]] : []))) as FitSize;
  const sized = Object.keys(fit).length > 0;
  // "would a 32 GB vm fit anywhere?", "which hypervisor should a 4 GB vm land on?"
  if (asks && sized && FIT_CUE.test(t)) return { fit };
  if (!room) return null;
  if (asks || !CHANGE.test(t)) return sized && asks ? { fit } : {};
  return null;
}

/** True when `text` asks how much room the hypervisor hosts have (and orders no change). */
export function isHostRoomQuestion(text: string): boolean {
  return readHostQuestion(text) !== null;
}
