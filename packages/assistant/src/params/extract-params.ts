import type { ParsedIntent } from "../router/parse-intent";
import { CREATE_TERMS, DELETE_TERMS, DOMAIN_KNOWLEDGE, FUNCTION_WORDS } from "../router/domain-knowledge";
import {
  extractCpus, extractDays, extractDeploymentSize, extractDiskGb, extractDnsForwarder, extractDomain, extractImage,
  extractMemoryMb, extractRegistryType, extractVersion,
} from "./value-extractors";

const NAME = /^[a-z][a-z0-9-]{0,62}$/;
const VM_NOUNS = ["vm", "vms", "machine", "server", "instance", "box", "guest"];
const CLUSTER_NOUNS = ["cluster", "openshift", "ocp", "okd"];

/** Words that are never a name: function words, verbs, and every keyword the router knows. */
const NOT_A_NAME = new Set<string>([
  ...FUNCTION_WORDS,
  ...[...CREATE_TERMS, ...DELETE_TERMS].flatMap((t) => t.split(" ")),
  ...DOMAIN_KNOWLEDGE.flatMap((k) => k.groups.flatMap((g) => g.terms.flatMap((t) => t.split(" ")))),
  "ram", "memory", "disk", "cpus", "cores", "stream", "linux", "node", "nodes", "version", "size", "domain", "quickly",
  "called", "named", "name", "like", "running", "but", "if", "when", "where", "because", "should", "will", "can",
]);

const FUNCTION_SET = new Set(FUNCTION_WORDS);

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
    else if (VM_NOUNS.includes(w) && !["called", "named"].includes(t[i + 1] ?? "")) { at = i + 1; explicit = false; }
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

/**
 * Every value the request states, keyed by the param names of the catalogue.
 * Which of them a DAG receives is decided by paramsForDag.
 */
export function extractAllValues(intent: ParsedIntent): Record<string, unknown> {
  const { text, tokens } = intent;
  const out: Record<string, unknown> = {};
  const set = (key: string, value: unknown) => { if (value !== undefined) out[key] = value; };
  const name = extractName(intent);
  if (name) set(name.of === "cluster" ? "cluster_name" : "vm_name", name.value);
  if (name?.of === "unknown") set("cluster_name", name.value);
  set("image", extractImage(text));
  set("cpus", extractCpus(text));
  set("memory_mb", extractMemoryMb(tokens));
  set("disk_gb", extractDiskGb(tokens));
  set("domain", extractDomain(tokens));
  set("registry_type", extractRegistryType(text));
  set("version", extractVersion(tokens));
  set("deployment_size", extractDeploymentSize(text));
  set("dns_forwarder", extractDnsForwarder(text));
  set("cert_warn_days", extractDays(text));
  const verb = extractActionVerb(text);
  // create is the default everywhere; say it only when a named VM is being created (what users and the dev set expect).
  if (verb === "delete" || (verb === "create" && out.vm_name !== undefined)) set("action", verb);
  return out;
}

/** The values a DAG declares, from everything the request states. */
export function paramsForDag(values: Record<string, unknown>, declared: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of declared) if (values[key] !== undefined) out[key] = values[key];
  return out;
}
