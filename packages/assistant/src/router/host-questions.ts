import { normalizeText } from "./normalize";

/**
 * Questions about the room left on the hypervisor hosts ("how much room is left on each host?",
 * "which host has the most free memory", "how full is host b"). They are answered from the host
 * inventory's last probes, never by a workflow. A request that orders a change ("create a vm on
 * host b with 4 GB") is never one, whatever it says about hosts.
 */

/** The hosts named as such (not "server", which names products too). */
const HOST_NOUN = /\b(hosts?|hypervisors?|kvm|libvirt)\b/;
/** What a capacity question asks about. */
const ROOM_CUE =
  /\b(room|space|capacity|capacities|free|full|fuller|fullest|emptiest|empty|left|available|headroom|usage|utili[sz]ation|load|loaded|busy|busiest|resources|fits?)\b|\bhow much (memory|ram|disk|cpu|cpus|vcpus|storage)\b|\b(most|least|more|less) (memory|ram|disk|cpu|cpus|vcpus|storage)\b/;
/** A request for a change, said as an order (possibly politely). */
const ORDER =
  /^(?:(?:please|ok|okay|now|then|and|so),? )*(?:(?:can|could|would|will) you (?:please )?|i (?:want|need|would like|'d like) (?:you )?to |let'?s |go (?:and )?)?(create|deploy|provision|spin|make|build|install|delete|remove|destroy|tear|launch|start|stop|restart|reboot|set up|setup|add|drain|activate|migrate|move|put|place|run|boot|resize|give me an? |get me an? )/;
/** A change verb anywhere: without a question form around it, the sentence is a request. */
const CHANGE = /\b(create|deploy|provision|spin up|build|install|delete|remove|destroy|launch|decommission)\b/;
/** How a question opens. */
const ASKS = /^(how|which|what|where|who|is|are|does|do|has|have|can|could|will|show|list|tell|give me the|display|report|check|compare|any)\b/;

/** True when `text` asks how much room the hypervisor hosts have (and orders no change). */
export function isHostRoomQuestion(text: string): boolean {
  const t = normalizeText(text);
  if (!HOST_NOUN.test(t) || !ROOM_CUE.test(t)) return false;
  if (ORDER.test(t)) return false;
  const asks = t.endsWith("?") || ASKS.test(t);
  return asks || !CHANGE.test(t);
}
