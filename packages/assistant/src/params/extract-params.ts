import type { ParsedIntent } from "../router/parse-intent";
import type { InputRequest } from "../types";
import { findGivenImagePath, findGivenName, findSuspectAfterNoun, foldedName } from "./given-names";
import { readFrame, type IntentFrame } from "../router/intent-frame";
import { readFlags, sizeFromCounts } from "./flag-values";
import { numberWordsToDigits } from "./number-words";
import { readOsMention, type OsMention } from "./os-images";
import { readSizes } from "./sizes";
import { readCaReference } from "./ca-reference";
import { readHostReference } from "./host-reference";
import { CREATE_TERMS, DELETE_TERMS, DOMAIN_KNOWLEDGE, FUNCTION_WORDS } from "../router/domain-knowledge";
import {
  extractCpus,
  extractDays,
  extractDeploymentSize,
  extractDiskGb,
  extractDnsForwarder,
  extractDomain,
  extractMemoryMb,
  extractRegistryType,
  extractVersion,
} from "./value-extractors";

const NAME = /^[a-z][a-z0-9-]{0,62}$/;
/** Adjectives Spanish and French put after the VM noun ("máquina virtual", "machine virtuelle"). */
const POSTPOSED = new Set(["virtual", "virtuelle", "virtuel", "nueva", "nuevo", "nouvelle", "nouveau"]);
const VM_NOUNS = ["vm", "vms", "machine", "server", "instance", "box", "guest", "maquina", "maschine", "servidor", "serveur"];
const CLUSTER_NOUNS = ["cluster", "openshift", "ocp", "okd"];

/** Words that are never a name: function words, verbs, and every keyword the router knows. */
const NOT_A_NAME = new Set<string>([
  ...FUNCTION_WORDS,
  ...[...CREATE_TERMS, ...DELETE_TERMS].flatMap((t) => t.split(" ")),
  ...DOMAIN_KNOWLEDGE.flatMap((k) => k.groups.flatMap((g) => g.terms.flatMap((t) => t.split(" ")))),
  "ram",
  "memory",
  "disk",
  "cpus",
  "cores",
  "stream",
  "linux",
  "node",
  "nodes",
  "version",
  "size",
  "domain",
  "quickly",
  "called",
  "named",
  "name",
  "like",
  "running",
  "but",
  "if",
  "when",
  "where",
  "because",
  "should",
  "will",
  "can",
  // Function words of the other languages the router reads: never names after a bare noun.
  "que",
  "qui",
  "y",
  "et",
  "und",
  "die",
  "der",
  "das",
  "den",
  "la",
  "le",
  "les",
  "el",
  "los",
  "las",
  "un",
  "une",
  "una",
  "ein",
  "eine",
  "avec",
  "con",
  "mit",
  "para",
  "pour",
  "fur",
  "de",
  "du",
  "des",
  "del",
  "en",
  "sur",
  "auf",
  "sin",
  "ohne",
  "sans",
  "dont",
  "welche",
  "se",
  "nommee",
  "appelee",
  "llamada",
  "namens",
  "neue",
  "nueva",
  "nouvelle",
  "bitte",
  "por",
  "favor",
  "svp",
  "merci",
  "gracias",
  "danke",
  // Words that follow a noun in a sentence without naming it ("the cluster deployment", "cluster going").
  "deployment",
  "installation",
  "going",
  "ready",
  "again",
  "yet",
  "done",
  "itself",
  "first",
]);

const FUNCTION_SET = new Set(FUNCTION_WORDS);
const DETERMINERS = new Set(["the", "my", "our", "that", "this", "your", "la", "le", "el", "die", "der", "das", "mi", "ma", "meine"]);

/**
 * After "called"/"named" any valid name counts except a function word ("named lab" names it lab);
 * after a bare noun ("vm web01") the word must not be one the router knows, so "vm for" or "vm with" never name a VM.
 */
function isName(token: string | undefined, explicit: boolean): token is string {
  if (!token || !NAME.test(token) || /^\d/.test(token)) return false;
  if (explicit) return !FUNCTION_SET.has(token);
  return !NOT_A_NAME.has(token) && !/^(rhel|centos|fedora|ubuntu|debian|rocky|alma)/.test(token);
}

/** A name given for a VM or a cluster, and which of the two it names. */
export interface NameMention {
  value: string;
  of: "vm" | "cluster" | "unknown";
}

/** "called web01", "named db-1", "vm web01", "cluster named prod"; the value is taken as typed. */
export function extractName(intent: ParsedIntent): NameMention | undefined {
  const t = intent.tokens;
  for (let i = 0; i < t.length; i++) {
    const w = t[i]!;
    let at = -1;
    let explicit = true;
    if (w === "called" || w === "named") at = i + 1;
    else if ((w === "name" || w === "call") && ["is", "of", "it", "them"].includes(t[i + 1] ?? "")) at = i + 2;
    else if ((VM_NOUNS.includes(w) || w === "cluster") && !["called", "named"].includes(t[i + 1] ?? "")) {
      // "la máquina virtual web-3", "la machine virtuelle web-12": the adjective comes after the noun.
      at = POSTPOSED.has(t[i + 1] ?? "") ? i + 2 : i + 1;
      explicit = false;
    }
    // "the old-api vm": a name-shaped word (digit or hyphen) between a determiner and the noun.
    if (at >= 0 && !explicit && !isName(t[at], false) && i >= 2 && DETERMINERS.has(t[i - 2]!) && /[\d-]/.test(t[i - 1]!) && isName(t[i - 1], false)) at = i - 1;
    if (at < 0 || !isName(t[at], explicit)) continue;
    const before = t.slice(Math.max(0, i - 4), i + 1);
    const of = before.some((b) => CLUSTER_NOUNS.includes(b)) ? "cluster" : before.some((b) => VM_NOUNS.includes(b)) ? "vm" : "unknown";
    return { value: intent.original[at] ?? t[at]!, of };
  }
  return undefined;
}

function firstIndex(text: string, phrases: readonly string[]): number {
  let best = -1;
  for (const p of phrases) {
    const m = new RegExp(`(?:^| )${p}(?= |$)`).exec(text);
    if (m && (best < 0 || m.index < best)) best = m.index;
  }
  return best;
}

/** delete when a delete verb comes first; create when a create verb comes first. */
export function extractActionVerb(text: string): "create" | "delete" | undefined {
  const del = firstIndex(text, DELETE_TERMS);
  const cre = firstIndex(text, CREATE_TERMS);
  if (del >= 0 && (cre < 0 || del <= cre)) return "delete";
  return cre >= 0 ? "create" : undefined;
}

/** Every value the request states, and the given values that break a rule. */
export interface ExtractedValues {
  values: Record<string, unknown>;
  /** Given values that break a rule: asked again, never coerced or replaced by a default. */
  issues: InputRequest[];
  /** A given value carries shell syntax: the request is rejected. */
  shell: boolean;
  /** The OS the request names, for the workflow to map to one of its images. */
  os?: OsMention;
}

/**
 * Every value the request states, keyed by the param names of the catalogue, with the names the
 * user gave judged as typed. Which of them a DAG receives is decided by paramsForDag.
 */
export function extractValues(intent: ParsedIntent, from: { values?: ParsedIntent; action?: string | null; frame?: IntentFrame } = {}): ExtractedValues {
  // Names are read from the whole request; other values from `from.values` (the request without negated parts) when given.
  const { text, tokens } = from.values ?? intent;
  const out: Record<string, unknown> = {};
  const issues: InputRequest[] = [];
  let shell = false;
  const set = (key: string, value: unknown) => {
    if (value !== undefined) out[key] = value;
  };
  const given = findGivenName(intent.raw) ?? findSuspectAfterNoun(intent.raw);
  if (given?.shell) shell = true;
  else if (given?.issue) {
    issues.push(given.issue);
    if (given.field === "unknown") issues.push({ ...given.issue, field: "cluster_name" });
  } else if (given?.value) {
    if (given.field !== "cluster_name") set("vm_name", given.value);
    if (given.field !== "vm_name") set("cluster_name", given.value);
  } else {
    const name = extractName(intent);
    // A bare "vm web01" must be written as such: "the freeipa vm, we moved" names nothing.
    const written = name && new RegExp(`(^|[^a-z0-9-])${name.value.replace(/[.-]/g, "\\$&")}($|[^a-z0-9-])`).test(intent.normalized.replace(/[,;:.!?]\s+\S+/g, " , "));
    // Read from the folded text, the name may not be what was typed ("vm ｗｅｂ－７"): then it is asked, never used folded.
    const folded = name && written ? foldedName(intent.raw, name.value, name.of === "cluster" ? "cluster_name" : "vm_name") : undefined;
    if (folded?.issue) {
      issues.push(folded.issue);
      if (name!.of === "unknown") issues.push({ ...folded.issue, field: "cluster_name" });
    } else if (name && written) {
      set(name.of === "cluster" ? "cluster_name" : "vm_name", name.value);
      if (name.of === "unknown") set("cluster_name", name.value);
    }
  }
  const imagePath = findGivenImagePath(intent.raw);
  // The OS named ("on debian", "rocky 9"): which image it is depends on the workflow (settleParams).
  const os = imagePath?.issue ? undefined : readOsMention(text);
  if (imagePath?.issue) issues.push(imagePath.issue);
  else set("image", os?.image);
  // Number words as digits for sizes, counts and shapes ("sixteen gigs", "three nodes").
  const counted = numberWordsToDigits(text);
  const sizes = readSizes(numberWordsToDigits((from.values ?? intent).normalized));
  set("cpus", sizes.cpus ?? extractCpus(counted));
  set("memory_mb", sizes.memory_mb ?? extractMemoryMb(tokens));
  set("disk_gb", sizes.disk_gb ?? extractDiskGb(tokens));
  for (const r of sizes.ranges) {
    delete out[r.field];
    issues.push({
      field: r.field,
      rule: `${r.field} takes one value, not a range (${r.given})`,
      question: `Which single value should ${r.field} have? (you gave ${r.given})`,
      given: r.given,
    });
  }
  set("domain", extractDomain(tokens));
  set("registry_type", extractRegistryType(text));
  set("version", extractVersion(tokens));
  set("deployment_size", sizeFromCounts(counted) ?? extractDeploymentSize(counted));
  for (const [k, v] of Object.entries(readFlags(from.frame ?? readFrame(intent.raw)))) set(k, v);
  set("dns_forwarder", extractDnsForwarder(text));
  const ca = readCaReference(intent.raw);
  if (ca?.shell) shell = true;
  else if (ca?.issue) issues.push(ca.issue);
  else set("ca_vm", ca?.value);
  const host = readHostReference(intent.raw);
  if (host?.shell) shell = true;
  else if (host?.issue) issues.push(host.issue);
  else set("host", host?.value);
  set("cert_warn_days", extractDays(text));
  // The frame's action (negation and retraction applied); with no action word it found, the typo-repaired verbs ("delte vm x").
  const framed = from.action === "create" || from.action === "delete" ? from.action : undefined;
  const verb = from.action !== undefined && (from.action !== null || (from.frame?.mentions.length ?? 0) > 0) ? framed : extractActionVerb(intent.text);
  // create is the default everywhere; say it only when a named VM is being created (what users and the dev set expect).
  // "give me a vm named edge-5", "a vm called cache-2 with …": a named VM with no action word is one to create.
  const implied = verb === undefined && !from.action && !from.frame?.withdrawn && !from.frame?.question ? "create" : verb;
  if (implied === "delete" || (implied === "create" && out.vm_name !== undefined)) set("action", implied);
  return { values: out, issues, shell, ...(os ? { os } : {}) };
}

/** Every value the request states (names that break a rule are left out). */
export function extractAllValues(intent: ParsedIntent): Record<string, unknown> {
  return extractValues(intent).values;
}

/** The values a DAG declares, from everything the request states. */
export function paramsForDag(values: Record<string, unknown>, declared: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of declared) if (values[key] !== undefined) out[key] = values[key];
  return out;
}
