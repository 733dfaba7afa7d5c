import { numberWordsToDigits } from "./number-words";
import type { IntentFrame } from "../router/intent-frame";

/** Booleans, ports, health-check areas and cluster shapes read from the request's words. */
export interface FlagValues {
  configure?: boolean;
  check_mode?: boolean;
  keep_on_failure?: boolean;
  ca_port?: number;
  checks?: string[];
}

const CHECK_AREAS: [string, RegExp][] = [
  ["host", /^(host|hosts|kvm-host)$/],
  ["hypervisor", /^(hypervisor|hypervisors|libvirt|libvirtd|kvm|qemu)$/],
  ["vms", /^(vm|vms|machines?|guests?|instances?)$/],
  ["networks", /^(network|networks|networking|bridges?|netze|redes|reseaux)$/],
  ["dns", /^(dns|resolution|resolver|resolvers|nameservers?)$/],
  ["certificates", /^(cert|certs|certificates?|tls|ssl|expiry|expiring|zertifikate|certificados|certificats)$/],
];

const DRY_RUN = /\b(dry[ -]?run|check[ -]mode|simulate|simulation|what[ -]if|trockenlauf|simulacro|a blanc|sans rien changer|without changing anything)\b/;
const KEEP_ON_FAILURE =
  /\b(keep|leave|retain|behalte|lass|conserva|garde)\b[^,]{0,25}\b(if|when|on|in case|wenn|si|falls|en cas)\b[^,]{0,20}\b(fail\w*|break\w*|error\w*|scheitert|fehlschlagt|falla|echoue)\b|\bkeep[ -]on[ -]failure\b|\b(don't|do not|dont)\s+(delete|remove|destroy|clean up)\b[^,]{0,20}\b(if|when|on)\b[^,]{0,15}\bfail/;
const CLEAN_ON_FAILURE = /\b(delete|remove|destroy|clean\s*up)\b[^,]{0,20}\b(if|when|on)\b[^,]{0,15}\bfail/;

const HOST_WORD = /^(host|hypervisor|kvm)$/;
const PINS = ["on", "to", "onto", "at"];

/** The words of a host reference ("on host b", "on the kvm host lab2"): they pin the run, they name no health-check area. */
function hostReferenceWords(words: readonly string[]): Set<number> {
  const out = new Set<number>();
  words.forEach((w, i) => {
    // "check the hypervisor?": a host word at a clause's end names the area, not a host.
    if (!HOST_WORD.test(w) || words[i + 1] === undefined || words[i + 1] === ",") return;
    const before = words[i - 1] === "the" ? words[i - 2] : words[i - 1];
    if (PINS.includes(before ?? "") || (out.has(i - 1) && w === "host")) out.add(i);
  });
  return out;
}

/** Index of the first word matching `re`, or -1. */
const indexOf = (words: readonly string[], re: RegExp) => words.findIndex((w) => re.test(w));

/** Reads the request's flags; a negated mention ("don't configure it", "not a dry run") reads as false. */
export function readFlags(frame: IntentFrame): FlagValues {
  const { words, excluded } = frame;
  const text = words.join(" ");
  const out: FlagValues = {};
  const negatedAt = (i: number) => excluded.has(i) || ["skip", "no", "without", "sin", "ohne", "sans", "keine", "kein"].includes(words[i - 1] ?? "");
  const conf = indexOf(words, /^(configure|configuring|configured|configuration|config|konfigurieren|konfiguriere|configurar|configurer)$/);
  if (conf >= 0) out.configure = !negatedAt(conf);
  const dry = DRY_RUN.exec(text);
  if (dry) out.check_mode = !/\b(not|no|don't|dont|do not|without|never|sin|ohne|pas|nicht|kein)\s+(a\s+|an\s+|in\s+|as\s+a\s+|einen?\s+)?$/.test(text.slice(0, dry.index));
  else if (/\b(for real|for good|really do it)\b/.test(text)) out.check_mode = false;
  if (KEEP_ON_FAILURE.test(text)) out.keep_on_failure = true;
  else if (CLEAN_ON_FAILURE.test(text)) out.keep_on_failure = false;
  const port = /\bport\s*:?\s*(\d{1,5})\b|\b(\d{1,5})\s+port\b|\bpuerto\s+(\d{1,5})\b/.exec(text);
  if (port) out.ca_port = Number(port[1] ?? port[2] ?? port[3]);
  const pinning = hostReferenceWords(words);
  const areas = CHECK_AREAS.filter(([, re]) => words.some((w, i) => re.test(w) && !excluded.has(i) && !pinning.has(i))).map(([a]) => a);
  const negatedAreas = CHECK_AREAS.filter(([, re]) => words.some((w, i) => re.test(w) && excluded.has(i))).map(([a]) => a);
  if (areas.length) out.checks = areas;
  else if (negatedAreas.length) out.checks = CHECK_AREAS.map(([a]) => a).filter((a) => !negatedAreas.includes(a));
  return out;
}

/**
 * Cluster shape from node counts: "3 masters 2 workers" → full, "3
 * control plane nodes" → compact, "a single master and no workers" / "1 node" → sno, "5 nodes" → full.
 */
export function sizeFromCounts(said: string): string | undefined {
  const text = numberWordsToDigits(said);
  const count = (s: string | undefined) => (s === undefined ? undefined : s === "single" ? 1 : s === "no" ? 0 : Number(s));
  const masters = count(/\b(\d+|single)[ -](?:masters?|control[ -]plane(?:[ -]nodes?)?|controllers?|ctrl)\b/.exec(text)?.[1]);
  const workers = count(/\b(\d+|no)[ -](?:workers?|worker[ -]nodes?|compute(?:[ -]nodes?)?)\b/.exec(text)?.[1]);
  const nodes = count(/\b(\d+)[ -]nodes?\b/.exec(text)?.[1]);
  if (workers !== undefined && workers > 0) return "full";
  if (masters === 3) return "compact";
  if (masters === 1) return "sno";
  if (nodes === 1) return "sno";
  if (nodes === 3) return "compact";
  if (nodes !== undefined && nodes >= 5) return "full";
  return undefined;
}
