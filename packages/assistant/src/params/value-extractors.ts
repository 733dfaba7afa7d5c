/** Extractors for single param values from a request's token text (tokens joined by spaces). */
import { numberWordsToDigits, numberWordValue } from "./number-words";

/** The English number words the value readers take, as digits (their values from numberWordValue). */
export const NUMBER_WORDS: Record<string, number> = Object.fromEntries(
  ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve", "sixteen", "thirty-two", "sixty-four"].map((w) => [w, numberWordValue(w)!]),
);

function toNumber(s: string): number | undefined {
  const n = NUMBER_WORDS[s] ?? Number(s);
  return Number.isFinite(n) ? n : undefined;
}

const IMAGE_RULES: { re: RegExp; to: (m: RegExpExecArray) => string }[] = [
  { re: /\b(?:rhel|redhat|red hat(?: enterprise linux)?)[ -]?(\d{1,2})\b/, to: (m) => `rhel${m[1]}` },
  { re: /\bcentos[ -]?(?:stream[ -]?)?(\d{1,2})(?:[ -]?stream)?\b/, to: (m) => `centos${m[1]}stream` },
  { re: /\bfedora[ -]?(\d{2})\b/, to: (m) => `fedora${m[1]}` },
  { re: /\bubuntu[ -]?(\d{2})\.?(\d{2})\b/, to: (m) => `ubuntu${m[1]}${m[2]}` },
  { re: /\bnoble\b/, to: () => "ubuntu2404" },
  { re: /\bjammy\b/, to: () => "ubuntu2204" },
  { re: /\bdebian[ -]?(\d{1,2})\b/, to: (m) => `debian${m[1]}` },
  { re: /\bbookworm\b/, to: () => "debian12" },
  { re: /\btrixie\b/, to: () => "debian13" },
  { re: /\brocky[ -]?(?:linux[ -]?)?(\d{1,2})\b/, to: (m) => `rocky${m[1]}` },
  { re: /\balma(?:linux)?[ -]?(\d{1,2})\b/, to: (m) => `almalinux${m[1]}` },
];

/** The earliest OS image named in the text, in catalogue spelling ("RHEL 9" → rhel9, "centos stream 10" → centos10stream). */
export function extractImage(text: string): string | undefined {
  return findImage(text)?.value;
}

/** The earliest OS image named in the text: its catalogue spelling and the words that named it. */
export function findImage(text: string): { value: string; words: string } | undefined {
  let best: { at: number; value: string; words: string } | undefined;
  for (const r of IMAGE_RULES) {
    const m = r.re.exec(text);
    if (m && (!best || m.index < best.at)) best = { at: m.index, value: r.to(m), words: m[0] };
  }
  return best && { value: best.value, words: best.words };
}

/** "4 cpus", "2 vcpus", "8 cores", "cpus: 4". */
export function extractCpus(text: string): number | undefined {
  const words = Object.keys(NUMBER_WORDS).join("|");
  const m = new RegExp(`\\b(\\d{1,3}|${words})[ -]?(?:v?cpus?|vcpus?|cores?|processors?|threads?)\\b`).exec(text) ?? /\b(?:v?cpus?|vcpus?|cores?)[ :=]+(\d{1,3})\b/.exec(text);
  return m?.[1] ? toNumber(m[1]) : undefined;
}

interface SizeMention {
  amount: number;
  unit: "m" | "g" | "t";
  index: number;
}

const UNIT = /^(mb|mib|m|gb|gib|g|tb|tib|t)$/;
const SIZE_TOKEN = /^(\d+(?:\.\d+)?)(mb|mib|m|gb|gib|g|tb|tib|t)$/;

function sizeMentions(tokens: readonly string[]): SizeMention[] {
  const out: SizeMention[] = [];
  tokens.forEach((t, i) => {
    const glued = SIZE_TOKEN.exec(t);
    if (glued) out.push({ amount: Number(glued[1]), unit: glued[2]![0] as SizeMention["unit"], index: i });
    else if (/^\d+(\.\d+)?$/.test(t) && UNIT.test(tokens[i + 1] ?? "")) out.push({ amount: Number(t), unit: tokens[i + 1]![0] as SizeMention["unit"], index: i + 1 });
  });
  return out;
}

const MEMORY_WORDS = new Set(["ram", "memory", "mem"]);
const DISK_WORDS = new Set(["disk", "disks", "storage", "drive", "volume", "hdd", "ssd"]);

/** What a size is about: the words right after it win ("8gb of ram"), then the words before ("disk 50gb"). */
function classify(tokens: readonly string[], at: number): "memory" | "disk" | undefined {
  const after = tokens.slice(at + 1, at + 4).filter((t) => t !== "of" && t !== "root" && t !== "the");
  const before = tokens.slice(Math.max(0, at - 3), at - (SIZE_TOKEN.test(tokens[at] ?? "") ? 0 : 1));
  const first = after[0];
  if (first && MEMORY_WORDS.has(first)) return "memory";
  if (first && DISK_WORDS.has(first)) return "disk";
  const prev = [...before].reverse().find((t) => MEMORY_WORDS.has(t) || DISK_WORDS.has(t));
  if (prev) return MEMORY_WORDS.has(prev) ? "memory" : "disk";
  return undefined;
}

/** Memory in MiB ("8GB of memory" → 8192, "4096 MB RAM" → 4096). */
export function extractMemoryMb(tokens: readonly string[]): number | undefined {
  const m = sizeMentions(tokens).find((s) => classify(tokens, s.index) === "memory");
  if (!m) return undefined;
  const factor = m.unit === "t" ? 1024 * 1024 : m.unit === "g" ? 1024 : 1;
  return Math.round(m.amount * factor);
}

/** Disk in GiB ("50GB disk" → 50, "1TB of storage" → 1024). */
export function extractDiskGb(tokens: readonly string[]): number | undefined {
  const m = sizeMentions(tokens).find((s) => classify(tokens, s.index) === "disk");
  if (!m) return undefined;
  const gb = m.unit === "t" ? m.amount * 1024 : m.unit === "g" ? m.amount : m.amount / 1024;
  return Number.isInteger(gb) ? gb : Math.ceil(gb);
}

const DOMAIN = /^(?=.{4,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** The first token shaped like a DNS domain (a version such as 4.19 is not one). */
export function extractDomain(tokens: readonly string[]): string | undefined {
  return tokens.find((t) => DOMAIN.test(t));
}

/** harbor / quay / mirror registry, in the DAG's enum spelling. */
export function extractRegistryType(text: string): string | undefined {
  const named = [
    { re: /\bharbou?r\b/, value: "harbor" },
    { re: /\bquay\b|\bmirror(ing|ed|s)?\b|\b(disconnected|air[ -]?gapped)\b/, value: "mirror-registry" },
    { re: /\b(oci |docker )?distribution\b|\bdocker[ -]registry\b|\bregistry:2\b/, value: "distribution" },
    // Registries the catalogue does not offer: kept as said, so that the schema asks (naming what is offered).
    { re: /\b(artifactory|jfrog|nexus|gitlab|zot|dragonfly|ecr|acr|gcr|docker ?hub)\b/, value: "" },
    // "registry type X", "of type X", "type: X": the word as said.
    { re: /\b(?:registry[ _]type|type)\s*[:=]?\s*([a-z][a-z0-9-]*)\b/, value: "" },
  ].flatMap((r) => {
    const m = r.re.exec(text);
    return m ? [{ at: m.index, value: r.value || (m[2] ?? m[1] ?? m[0]) }] : [];
  });
  return named.sort((a, b) => a.at - b.at)[0]?.value;
}

const PRODUCT_WORDS = new Set(["openshift", "ocp", "okd", "version", "release", "ver"]);
const UNIT_AFTER = /^(gb|gib|g|mb|mib|m|tb|t|cpus?|vcpus?|cores?|nodes?|masters?|workers?|days?|x|times|percent)$/;

/**
 * An OpenShift version as the user wrote it ("openshift 4.19", "ocp4.16", "ocp-4.15", "v4.18",
 * "version 3.11", "okd 5.0"): any 4.x, and other numbers right after a product or "version". It is
 * not checked here: a version the catalogue does not offer is asked again, never replaced by the default.
 */
export function extractVersion(tokens: readonly string[]): string | undefined {
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (UNIT_AFTER.test(tokens[i + 1] ?? "")) continue;
    const glued = /^(?:openshift|ocp|okd)-?v?(\d+(?:\.\d+){0,2})$|^v(\d+(?:\.\d+){0,2})$/.exec(t);
    const found = glued ? (glued[1] ?? glued[2]) : /^4\.\d+(\.\d+)?$/.test(t) || (/^\d+(\.\d+){0,2}$/.test(t) && PRODUCT_WORDS.has(tokens[i - 1] ?? "")) ? t : undefined;
    // "OCP 4" names the generation the catalogue offers, not a release: the DAG's default release stands.
    if (found !== undefined && found !== "4") return found;
  }
  return undefined;
}

const SIZE_RULES: { re: RegExp; value: string }[] = [
  {
    re: /\b(sno|single[ -]node|1[ -](nodes?|nodos?|knoten|noeuds?)|mono[ -]noeud|nodo unico|un solo nodo|einzelknoten|ein(em)? knoten|un seul noeud|one node only|only one node)\b/,
    value: "sno",
  },
  { re: /\b(compact|3[ -](nodes?|nodos?|knoten|noeuds?))\b/, value: "compact" },
  { re: /\b(full|ha|high[ -]availability|highly[ -]available|multi[ -]node|standard)\b/, value: "full" },
];

/** Cluster topology: single node → sno, three node / compact → compact, full / HA → full. */
export function extractDeploymentSize(said: string): string | undefined {
  const text = numberWordsToDigits(said);
  let best: { at: number; value: string } | undefined;
  for (const r of SIZE_RULES) {
    const m = r.re.exec(text);
    if (m && (!best || m.index < best.at)) best = { at: m.index, value: r.value };
  }
  return best?.value;
}

const IPV4 = /^((25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(25[0-5]|2[0-4]\d|1?\d?\d)$/;
const DNS_CUES = /^(forward\w*|upstream|resolvers?|dns|nameservers?|forwarders?)$/;

/**
 * An upstream DNS forwarder: an IPv4 address said with DNS words around it ("forwarder 8.8.8.8",
 * "using 10.0.0.53 as the upstream dns", "upstream resolver 9.9.9.9", "forward dns queries to 1.1.1.1").
 */
export function extractDnsForwarder(text: string): string | undefined {
  const words = text.split(" ");
  for (let i = 0; i < words.length; i++) {
    if (!IPV4.test(words[i]!)) continue;
    // "ip 10.0.0.5", "address 10.0.0.5": the server's own address, not a forwarder.
    if (/^(ip|address|addr|at)$/.test(words[i - 1] ?? "")) continue;
    if (words.slice(Math.max(0, i - 5), i + 5).some((w) => DNS_CUES.test(w))) return words[i];
  }
  return undefined;
}

/** Certificate warning window ("certificates expiring within 14 days"). */
export function extractDays(text: string): number | undefined {
  const m = /\b(\d{1,3}) days?\b/.exec(text);
  return m?.[1] ? Number(m[1]) : undefined;
}
